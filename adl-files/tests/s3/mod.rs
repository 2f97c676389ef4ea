//! A real S3 API server for the object storage tests: moto's, from PyPI,
//! installed in a virtual environment under the target directory (made on
//! first use, then reused) and started once per test binary on a free
//! localhost port.
//!
//! The server runs in a Python process whose standard input is a pipe
//! from the test process: it stops when the pipe closes, that is when the
//! test process ends, however it ends. [`S3Server`] also stops it when
//! dropped.

#![allow(dead_code, unreachable_pub)]

pub mod flaky;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use adl::files::{RetryPolicy, Store, StoreOptions};

/// The moto release the tests run against.
const MOTO: &str = "moto[server]==5.2.5";

/// The bucket the tests' objects are put in.
pub const BUCKET: &str = "adl-test";

/// The credentials the tests sign with (moto takes any).
pub const KEY_ID: &str = "testing";
/// See [`KEY_ID`].
pub const SECRET: &str = "testing";

/// Starts moto's server on a port of its choice, says the port on a line,
/// and serves until its standard input closes.
const SERVE: &str = r#"
import sys
from moto.server import ThreadedMotoServer
server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
server.start()
print(server.get_host_and_port()[1], flush=True)
sys.stdin.read()
server.stop()
"#;

/// A running moto server.
pub struct S3Server {
    child: Child,
    /// Held open: the server stops when it closes.
    stdin: Option<ChildStdin>,
    /// `127.0.0.1:PORT`.
    pub address: String,
}

impl S3Server {
    /// The server of this test binary, started on first use, with the
    /// bucket [`BUCKET`] made.
    pub fn shared() -> &'static S3Server {
        static SERVER: OnceLock<S3Server> = OnceLock::new();
        SERVER.get_or_init(|| {
            let server = S3Server::start();
            server.create_bucket(BUCKET);
            server
        })
    }

    /// A new server (see the module's doc); panics saying what to install
    /// where Python, its venv module or pip are missing.
    pub fn start() -> S3Server {
        let python = venv_python();
        let mut child = Command::new(&python)
            .args(["-c", SERVE])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
        let stdin = child.stdin.take();
        let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut line = String::new();
        let _ = stdout.read_line(&mut line);
        let Ok(port) = line.trim().parse::<u16>() else {
            let mut stderr = String::new();
            if let Some(mut err) = child.stderr.take() {
                let _ = child.kill();
                let _ = err.read_to_string(&mut stderr);
            }
            panic!("moto's server did not start (it printed `{line}`):\n{stderr}");
        };
        // The server logs each request on its stderr: read and dropped, so
        // that the pipe never fills (after some 400 requests it did, and
        // the server stopped answering, blocked on its log).
        if let Some(mut err) = child.stderr.take() {
            std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
        }
        let server = S3Server {
            child,
            stdin,
            address: format!("127.0.0.1:{port}"),
        };
        server.wait_until_it_answers();
        server
    }

    /// `http://127.0.0.1:PORT`.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.address)
    }

    /// Options for a store on this server: its endpoint and the test
    /// credentials, with `retry`.
    pub fn options(&self, retry: RetryPolicy) -> StoreOptions {
        options_for(&self.endpoint(), retry)
    }

    /// The store of [`BUCKET`] on this server, with a fast retry policy.
    pub fn store(&self) -> Store {
        let retry = RetryPolicy::new(3, Duration::from_millis(20), Duration::from_millis(100));
        Store::open_with(&format!("s3://{BUCKET}"), &self.options(retry)).unwrap()
    }

    fn wait_until_it_answers(&self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok((200, _)) = self.send("GET", "/", "", &[]) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "moto's server at {} did not answer within 60 s",
                self.address
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Make a bucket (moto takes an unsigned request for it).
    pub fn create_bucket(&self, bucket: &str) {
        let (status, body) = self.send("PUT", &format!("/{bucket}"), "", &[]).unwrap();
        assert_eq!(status, 200, "creating bucket {bucket}: {body}");
    }

    /// Put `bytes` as the object `key` of [`BUCKET`], readable by anyone
    /// (as a plain HTTP server's files are): `http://ADDRESS/BUCKET/KEY`.
    pub fn put_public(&self, key: &str, bytes: &[u8]) {
        let path = format!("/{BUCKET}/{key}");
        let headers = "x-amz-acl: public-read\r\nContent-Type: application/octet-stream\r\n";
        let (status, body) = self.send("PUT", &path, headers, bytes).unwrap();
        assert_eq!(status, 200, "putting {key}: {body}");
    }

    /// Put `bytes` as the object `key` of [`BUCKET`].
    pub fn put(&self, key: &str, bytes: &[u8]) {
        put(&self.endpoint(), key, bytes);
    }

    /// Every file under the folder `root`, as `prefix/` and its path from
    /// `root`, except those whose path `skip` says to leave out.
    #[allow(dead_code)]
    pub fn put_tree(&self, prefix: &str, root: &Path, skip: impl Fn(&str) -> bool) {
        let mut folders = vec![root.to_path_buf()];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    folders.push(path);
                    continue;
                }
                let key = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                if !skip(&key) {
                    self.put(&format!("{prefix}/{key}"), &std::fs::read(&path).unwrap());
                }
            }
        }
    }

    /// One HTTP/1.1 request without signature, with `headers` (each line
    /// ending in CRLF); the status and the whole answer.
    fn send(
        &self,
        method: &str,
        path: &str,
        headers: &str,
        body: &[u8],
    ) -> std::io::Result<(u16, String)> {
        let mut stream = TcpStream::connect(&self.address)?;
        stream.set_read_timeout(Some(Duration::from_secs(10)))?;
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: {}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
            self.address,
            body.len()
        )?;
        stream.write_all(body)?;
        let mut answer = String::new();
        stream.read_to_string(&mut answer)?;
        let status = answer
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        Ok((status, answer))
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        // Closing its input stops it; kill in case it does not.
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Store options for the S3 endpoint `endpoint` with the test credentials.
pub fn options_for(endpoint: &str, retry: RetryPolicy) -> StoreOptions {
    StoreOptions::default()
        .with_retry(retry)
        .with_config("aws_endpoint", endpoint)
        .with_config("aws_allow_http", "true")
        .with_config("aws_access_key_id", KEY_ID)
        .with_config("aws_secret_access_key", SECRET)
        .with_config("aws_region", "us-east-1")
}

/// Put `bytes` as the object `key` of [`BUCKET`] at `endpoint`, with
/// object_store itself (signed as the tests' stores sign).
fn put(endpoint: &str, key: &str, bytes: &[u8]) {
    use object_store::ObjectStoreExt;
    use object_store::aws::AmazonS3Builder;
    let store = AmazonS3Builder::new()
        .with_endpoint(endpoint)
        .with_allow_http(true)
        .with_bucket_name(BUCKET)
        .with_access_key_id(KEY_ID)
        .with_secret_access_key(SECRET)
        .with_region("us-east-1")
        .build()
        .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let payload = bytes::Bytes::copy_from_slice(bytes);
    runtime
        .block_on(store.put(&key.into(), payload.into()))
        .unwrap_or_else(|e| panic!("putting {key}: {e}"));
}

/// The Python of the tests' virtual environment, made (with moto in it)
/// if it is not there yet.
fn venv_python() -> PathBuf {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("store-venv");
    let python = venv.join("bin").join("python");
    let ready = venv.join("adl-ready");
    if std::fs::read_to_string(&ready).is_ok_and(|made| made == MOTO) && python.is_file() {
        return python;
    }
    let _ = std::fs::remove_dir_all(&venv);
    let host = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let needs = "The object storage tests run moto's S3 server from PyPI in a virtual \
                 environment they make: they need Python 3 with its venv module and pip, and \
                 access to PyPI. On Debian: `apt-get install python3 python3-venv python3-pip`; \
                 or set PYTHON to a Python 3 that has them.";
    run(
        Command::new(&host).arg("-m").arg("venv").arg(&venv),
        needs,
        "making the venv",
    );
    run(
        Command::new(&python).args(["-m", "pip", "install", "--quiet", MOTO]),
        needs,
        &format!("installing {MOTO}"),
    );
    std::fs::write(&ready, MOTO).unwrap();
    python
}

/// Run `command`, panicking with `needs` and its output where it fails.
fn run(command: &mut Command, needs: &str, what: &str) {
    match command.output() {
        Ok(out) if out.status.success() => {}
        Ok(out) => panic!(
            "{what} failed ({}): {}{}\n{needs}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => panic!(
            "{what}: cannot run {:?}: {e}\n{needs}",
            command.get_program()
        ),
    }
}
