//! A command of the test command running beside the rest (a pytest, the
//! servers' venvs being made), its output kept in a log
//! under the target dir and shown when it ends; killed where dropped
//! unfinished (another step failed).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

/// When a [`Background`] command's log is printed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shown {
    /// When it ends, however it ends (the Python tests: their slowest
    /// tests, their warnings).
    Always,
    /// Only where it fails, in its error.
    OnFailure,
}

/// A command running beside the rest.
pub(crate) struct Background {
    what: String,
    child: Option<Child>,
    log: PathBuf,
    shown: Shown,
    started: Instant,
}

impl Background {
    /// Start `command`, `what` it is, its output in the file `log` of the
    /// target dir (made anew).
    pub(crate) fn start(
        root: &Path,
        what: impl Into<String>,
        command: &mut Command,
        log: &str,
        shown: Shown,
    ) -> Result<Background, String> {
        let what = what.into();
        let log = crate::target_dir(root).join(log);
        let child = output_to(command, &log, &what)?
            .spawn()
            .map_err(|e| format!("{what}: cannot run {:?}: {e}", command.get_program()))?;
        Ok(Background {
            what,
            child: Some(child),
            log,
            shown,
            started: Instant::now(),
        })
    }

    /// Wait for it, and give its failure (with its output, where that is
    /// not printed already).
    pub(crate) fn finish(mut self) -> Result<(), String> {
        let Some(mut child) = self.child.take() else {
            return Ok(());
        };
        let status = child.wait().map_err(|e| format!("{}: {e}", self.what))?;
        crate::took(&format!("{} (from its start)", self.what), self.started);
        let printed = std::fs::read_to_string(&self.log).unwrap_or_default();
        if self.shown == Shown::Always {
            eprintln!("xtask: {} ({}):\n{printed}", self.what, self.log.display());
        }
        match (status.success(), self.shown) {
            (true, _) => Ok(()),
            (false, Shown::Always) => Err(format!(
                "{} failed ({status}); the output is above",
                self.what
            )),
            (false, Shown::OnFailure) => {
                Err(format!("{} failed ({status}):\n{printed}", self.what))
            }
        }
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Wait for each of `commands`, in turn, and give the first failure.
pub(crate) fn finish_all(commands: Vec<Background>) -> Result<(), String> {
    let mut first = Ok(());
    for command in commands {
        let finished = command.finish();
        if first.is_ok() {
            first = finished;
        }
    }
    first
}

/// `command` with its output and errors going to the file `log` (made
/// anew); `what` names the command where the file cannot be made.
pub(crate) fn output_to<'c>(
    command: &'c mut Command,
    log: &Path,
    what: &str,
) -> Result<&'c mut Command, String> {
    let file = File::create(log).map_err(|e| format!("{what}: creating {}: {e}", log.display()))?;
    let copy = file
        .try_clone()
        .map_err(|e| format!("{what}: {}: {e}", log.display()))?;
    Ok(command.stdout(Stdio::from(file)).stderr(Stdio::from(copy)))
}
