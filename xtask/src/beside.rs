//! The docs' check beside the Rust tests (`cargo xtask test`). The tests
//! leave about half of CI's two cores idle (they wait on servers, child
//! processes and timeouts), and `cargo doc` needs the target dir's lock,
//! which `cargo test` holds while it builds and lets go before it runs
//! the tests. So the check waits for the tests' first `Running` line,
//! then runs, its output kept in a log and printed where it fails.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::docs;

/// The docs' check, waiting for the Rust tests' build or running.
pub(crate) struct Docs {
    /// Lets the check go; `None` once it has.
    release: Option<Sender<()>>,
    handle: Option<JoinHandle<Result<(), String>>>,
    /// `cargo doc` while it runs, killed where the check is dropped
    /// unfinished (a step before it failed).
    child: Arc<Mutex<Option<Child>>>,
}

impl Docs {
    /// The check, waiting to be let go.
    pub(crate) fn start(root: &Path, cargo: &str) -> Docs {
        let (release, released) = channel::<()>();
        let child = Arc::new(Mutex::new(None));
        let running = Arc::clone(&child);
        let root = root.to_path_buf();
        let cargo = cargo.to_string();
        let handle = std::thread::spawn(move || {
            if released.recv().is_err() {
                return Err(
                    "the docs' check did not run: the Rust tests' build did not finish".into(),
                );
            }
            let started = Instant::now();
            let checked = run_check(&root, &cargo, &running);
            crate::took("the docs' check (beside the Rust tests)", started);
            checked
        });
        Docs {
            release: Some(release),
            handle: Some(handle),
            child,
        }
    }

    /// Whether the check has been let go.
    pub(crate) fn released(&self) -> bool {
        self.release.is_none()
    }

    /// Run `command` (`cargo test`), its standard error passed through
    /// line by line, and let the check go at its first `Running` line.
    pub(crate) fn run_releasing(&mut self, command: &mut Command) -> std::io::Result<ExitStatus> {
        let mut child = command.stderr(Stdio::piped()).spawn()?;
        if let Some(stderr) = child.stderr.take() {
            let mut reader = BufReader::new(stderr);
            let mut line = Vec::new();
            let mut out = std::io::stderr();
            while reader.read_until(b'\n', &mut line)? > 0 {
                let _ = out.write_all(&line);
                if String::from_utf8_lossy(&line)
                    .trim_start()
                    .starts_with("Running ")
                    && let Some(release) = self.release.take()
                {
                    let _ = release.send(());
                }
                line.clear();
            }
        }
        child.wait()
    }

    /// Wait for the check and give its result.
    pub(crate) fn finish(mut self) -> Result<(), String> {
        // Let go here at the latest (the tests ran no binary).
        if let Some(release) = self.release.take() {
            let _ = release.send(());
        }
        match self.handle.take().map(JoinHandle::join) {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err("the docs' check panicked".into()),
            None => Ok(()),
        }
    }
}

impl Drop for Docs {
    fn drop(&mut self) {
        // Unfinished: the check is not let go, and `cargo doc` is stopped.
        self.release.take();
        if let Ok(mut child) = self.child.lock()
            && let Some(child) = child.as_mut()
        {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// `cargo doc` with its output in `target/docs-check.log`, then the
/// Markdown's paths; `running` holds `cargo doc` while it runs.
fn run_check(root: &Path, cargo: &str, running: &Mutex<Option<Child>>) -> Result<(), String> {
    let log = log_path(root);
    let file = std::fs::File::create(&log)
        .map_err(|e| format!("the docs' check: creating {}: {e}", log.display()))?;
    let copy = file
        .try_clone()
        .map_err(|e| format!("the docs' check: {}: {e}", log.display()))?;
    let spawned = docs::doc_command(root, cargo)
        .stdout(file)
        .stderr(copy)
        .spawn()
        .map_err(|e| format!("could not run {cargo} doc: {e}"))?;
    *running
        .lock()
        .map_err(|_| "the docs' check: a lock was poisoned")? = Some(spawned);
    let status = loop {
        {
            let mut guard = running
                .lock()
                .map_err(|_| "the docs' check: a lock was poisoned")?;
            let Some(child) = guard.as_mut() else {
                return Err("the docs' check was stopped".into());
            };
            if let Some(status) = child
                .try_wait()
                .map_err(|e| format!("the docs' check: {e}"))?
            {
                guard.take();
                break status;
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let printed = std::fs::read_to_string(&log).unwrap_or_default();
    if !status.success() {
        return Err(docs::doc_failed(status, &printed));
    }
    docs::check_pages(root)
}

/// Where `cargo doc`'s output goes.
fn log_path(root: &Path) -> PathBuf {
    docs::target_dir(root).join("docs-check.log")
}
