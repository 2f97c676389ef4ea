//! A TCP proxy in front of the S3 server that fails the way networks and
//! servers fail, for a while or for good: a port that refuses connections
//! until it opens, answers with an HTTP error status, a server that never
//! answers.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// How the proxy fails.
#[derive(Debug, Clone, Copy)]
pub enum Fault {
    /// Its port is closed (connections refused) for this long, then it
    /// forwards.
    ClosedFor(Duration),
    /// It answers the first `times` requests with `status`, then forwards.
    Answer { status: u16, times: usize },
    /// It accepts connections and never answers.
    Silent,
}

/// A proxy to an upstream server, failing as its [`Fault`] says; stopped
/// when dropped.
pub struct Flaky {
    address: SocketAddr,
    stop: Arc<AtomicBool>,
    /// Requests answered with the fault's status so far.
    answered: Arc<AtomicUsize>,
}

impl Flaky {
    /// A proxy on a free localhost port to `upstream` (`127.0.0.1:PORT`).
    pub fn start(upstream: &str, fault: Fault) -> Flaky {
        let upstream: SocketAddr = upstream.parse().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let answered = Arc::new(AtomicUsize::new(0));
        // A free port, closed until the fault opens it.
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let listener = match fault {
            Fault::ClosedFor(_) => {
                drop(listener);
                None
            }
            _ => Some(listener),
        };
        let (flag, count) = (Arc::clone(&stop), Arc::clone(&answered));
        thread::spawn(move || {
            let listener = listener.unwrap_or_else(|| {
                let Fault::ClosedFor(closed) = fault else {
                    unreachable!("only ClosedFor starts closed")
                };
                thread::sleep(closed);
                bind_again(address)
            });
            serve(listener, upstream, fault, &flag, &count);
        });
        Flaky {
            address,
            stop,
            answered,
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.address)
    }

    /// Requests answered with the fault's status so far.
    pub fn answered(&self) -> usize {
        self.answered.load(Ordering::SeqCst)
    }
}

impl Drop for Flaky {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so that it sees the flag.
        let _ = TcpStream::connect_timeout(&self.address, Duration::from_millis(200));
    }
}

/// Bind `address` again (its port was let go of a moment ago).
fn bind_again(address: SocketAddr) -> TcpListener {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match TcpListener::bind(address) {
            Ok(listener) => return listener,
            Err(e) if Instant::now() > deadline => panic!("cannot bind {address} again: {e}"),
            Err(_) => thread::sleep(Duration::from_millis(10)),
        }
    }
}

fn serve(
    listener: TcpListener,
    upstream: SocketAddr,
    fault: Fault,
    stop: &AtomicBool,
    answered: &AtomicUsize,
) {
    // Connections of a silent proxy, held open until it stops.
    let mut held = Vec::new();
    for client in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(mut client) = client else { continue };
        match fault {
            Fault::Silent => held.push(client),
            Fault::Answer { status, times } if answered.load(Ordering::SeqCst) < times => {
                answered.fetch_add(1, Ordering::SeqCst);
                read_head(&mut client);
                let _ = write!(
                    client,
                    "HTTP/1.1 {status} Failing On Purpose\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                );
                let _ = client.shutdown(Shutdown::Both);
            }
            _ => forward(client, upstream),
        }
    }
}

/// Read a request's head (the tests' requests through a failing proxy
/// have no body).
fn read_head(client: &mut TcpStream) {
    let _ = client.set_read_timeout(Some(Duration::from_secs(5)));
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match client.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
}

/// Copy bytes both ways between `client` and a new connection to
/// `upstream`, each way on a thread, until either side closes.
fn forward(client: TcpStream, upstream: SocketAddr) {
    let Ok(server) = TcpStream::connect(upstream) else {
        return;
    };
    let (Ok(client_in), Ok(server_in)) = (client.try_clone(), server.try_clone()) else {
        return;
    };
    let pipe = |mut from: TcpStream, mut to: TcpStream| {
        thread::spawn(move || {
            let _ = std::io::copy(&mut from, &mut to);
            let _ = to.shutdown(Shutdown::Write);
        });
    };
    pipe(client_in, server);
    pipe(server_in, client);
}
