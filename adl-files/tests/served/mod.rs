//! A server process the object storage tests start (SeaweedFS, Azurite):
//! run under a Python process whose standard input is a pipe from the
//! test process, which stops the server and removes its folder when the
//! pipe closes, that is when the test process ends, however it ends.
//! Also the venvs' installs, and a folder of its own for each server.

#![allow(dead_code, unreachable_pub)]

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// Runs the command it is given with its output in `server.log` of the
/// folder named first, says so on a line, and when its own standard input
/// closes stops it and removes that folder. A line `kill` on its input
/// kills the server at once (SIGKILL: no goodbye to its clients), `start`
/// starts it again with the same arguments (its ports and data); each is
/// answered with a line.
const SERVE: &str = r#"
import shutil, subprocess, sys
folder = sys.argv[1]
log = open(folder + "/server.log", "ab")
def start():
    return subprocess.Popen(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=log, stderr=log)
server = start()
print("started", flush=True)
for line in sys.stdin:
    if line.strip() == "kill":
        server.kill()
        server.wait()
        print("killed", flush=True)
    elif line.strip() == "start":
        server = start()
        print("started", flush=True)
server.terminate()
try:
    server.wait(10)
except subprocess.TimeoutExpired:
    server.kill()
    server.wait()
shutil.rmtree(folder, ignore_errors=True)
"#;

/// A server process, under its Python wrapper.
pub struct Served {
    child: Child,
    /// Held open: the server stops when it closes.
    stdin: Option<ChildStdin>,
    /// The wrapper's answers.
    answers: BufReader<ChildStdout>,
    /// Its folder: its data and `server.log`.
    pub dir: PathBuf,
}

impl Served {
    /// A new empty folder for a server `name`, under the target's temporary
    /// folder, named by this process and a count.
    pub fn folder(name: &str) -> PathBuf {
        static STARTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "{name}-{}-{}",
            std::process::id(),
            STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// `program` with `args` started by `python` (any Python 3), its
    /// folder `dir`; `what` names it where it does not start.
    pub fn start<S: AsRef<OsStr>>(
        what: &str,
        python: &Path,
        dir: PathBuf,
        program: &Path,
        args: impl IntoIterator<Item = S>,
    ) -> Served {
        let mut child = Command::new(python)
            .arg("-c")
            .arg(SERVE)
            .arg(&dir)
            .arg(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
        let stdin = child.stdin.take();
        let mut answers = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut line = String::new();
        let _ = answers.read_line(&mut line);
        if line.trim() != "started" {
            let mut stderr = String::new();
            if let Some(mut err) = child.stderr.take() {
                let _ = child.kill();
                let _ = err.read_to_string(&mut stderr);
            }
            panic!("{what} did not start (it printed `{line}`):\n{stderr}");
        }
        Served {
            child,
            stdin,
            answers,
            dir,
        }
    }

    /// Its log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default()
    }

    /// Kill the server (SIGKILL), keeping its folder.
    pub fn kill(&mut self) {
        self.tell("kill", "killed");
    }

    /// Start the killed server again, with the same arguments.
    pub fn restart(&mut self) {
        self.tell("start", "started");
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

    /// Until `answers` says yes, or 60 s: then panic with the log.
    pub fn wait_until(&self, what: &str, answers: impl Fn() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !answers() {
            assert!(
                Instant::now() < deadline,
                "{what} did not answer within 60 s; its log:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Served {
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

/// A venv at `venv` made by the host's Python (or `PYTHON`) with
/// `packages` from PyPI, then `then` run in it, unless it was made so
/// already (its `adl-ready` file says `made`); `needs` says what this
/// takes where it fails.
///
/// Made under a lock (a file beside it, locked while it is made), so that
/// two processes that want it at once (the test command makes the
/// servers' venvs ahead of the tests that start them) make it once.
// `File::lock` is Rust 1.89's: the tests build with a newer Rust than the
// libraries' minimum.
#[allow(clippy::incompatible_msrv)]
pub fn venv(venv: &Path, packages: &[&str], made: &str, needs: &str, then: impl FnOnce(&Path)) {
    let ready = venv.join("adl-ready");
    if std::fs::read_to_string(&ready).is_ok_and(|was| was == made) {
        return;
    }
    let lock = venv.with_extension("lock");
    if let Some(parent) = lock.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    let lock =
        std::fs::File::create(&lock).unwrap_or_else(|e| panic!("creating {}: {e}", lock.display()));
    // Held until it drops at the end: another process waits here, then
    // finds the venv made.
    lock.lock()
        .unwrap_or_else(|e| panic!("locking {}.lock: {e}", venv.display()));
    if std::fs::read_to_string(&ready).is_ok_and(|was| was == made) {
        return;
    }
    let _ = std::fs::remove_dir_all(venv);
    let host = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    run(
        Command::new(&host).arg("-m").arg("venv").arg(venv),
        needs,
        "making the venv",
    );
    run(
        Command::new(venv.join("bin").join("python"))
            .args(["-m", "pip", "install", "--quiet", "--progress-bar", "off"])
            .args(packages),
        needs,
        &format!("installing {}", packages.join(", ")),
    );
    then(venv);
    std::fs::write(&ready, made).unwrap();
}

/// Run `command`, panicking with `needs` and its output where it fails.
pub fn run(command: &mut Command, needs: &str, what: &str) {
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
