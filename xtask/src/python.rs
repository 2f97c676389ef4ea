//! The Python package's tests: `adl-python`, the example crate
//! `examples/python_px4` and the W2 benchmark's module `bench/python`
//! built and installed into a virtual environment
//! under the target dir (made once, with the packages its tests need from
//! PyPI), then their pytest suites.

use std::path::{Path, PathBuf};
use std::process::Command;

/// What the tests need from PyPI; the venv is made again when this
/// changes. abstract-dataloader is the reference the package is checked
/// against, at the release it follows.
const REQUIREMENTS: [&str; 6] = [
    "maturin>=1.9,<2",
    "numpy",
    "pytest",
    "hypothesis",
    "beartype",
    "abstract-dataloader==0.4.7",
];

const NEEDS: &str = "The Python package's tests make a virtual environment under the \
                     target dir and install their packages from PyPI: they need Python 3 with \
                     its venv module and pip (Debian: `apt-get install python3 python3-venv \
                     python3-pip`; or set PYTHON to a Python 3 that has them), and access to PyPI.";

/// Build `adl-python` into the tests' venv (`pip install ./adl-python`,
/// a debug build that shares the workspace's target dir) and run its
/// tests.
pub(crate) fn test_package(root: &Path) -> Result<(), String> {
    let python = venv_python(root)?;
    // The venv's scripts first on the PATH: maturin's build hook runs its
    // `maturin` from there.
    let bin = python.parent().unwrap_or(root).to_path_buf();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&path)))
        .map_err(|e| format!("the PATH with the venv's scripts: {e}"))?;
    // The package, the example of a crate of one's own
    // (examples/python_px4), and the W2 benchmark's module (bench/python).
    for package in ["adl-python", "examples/python_px4", "bench/python"] {
        let mut install = Command::new(&python);
        install
            .env("PATH", &path)
            .args(["-m", "pip", "install", "--quiet", "--no-build-isolation"])
            .args(["--force-reinstall", "--no-deps"])
            .arg(root.join(package))
            .env("MATURIN_PEP517_ARGS", "--profile dev");
        run(
            &mut install,
            &format!("building and installing {package}"),
            NEEDS,
        )?;
    }
    let mut pytest = Command::new(&python);
    pytest
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(root.join("adl-python").join("tests"))
        .arg(root.join("examples").join("python_px4").join("test_px4.py"))
        .arg(root.join("bench").join("python").join("test_w2.py"))
        .current_dir(root);
    run(&mut pytest, "the Python package's tests", "")
}

/// The venv's Python, the venv made with [`REQUIREMENTS`] first where it
/// is not there or was made with others.
fn venv_python(root: &Path) -> Result<PathBuf, String> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let venv = target.join("python-venv");
    let python = venv.join("bin").join("python");
    let ready = venv.join("adl-ready");
    let wanted = REQUIREMENTS.join("\n");
    if std::fs::read_to_string(&ready).is_ok_and(|made| made == wanted) && python.is_file() {
        return Ok(python);
    }
    let _ = std::fs::remove_dir_all(&venv);
    let host = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    eprintln!(
        "xtask: making {} with {}",
        venv.display(),
        REQUIREMENTS.join(", ")
    );
    run(
        Command::new(&host).args(["-m", "venv"]).arg(&venv),
        "making the Python venv",
        NEEDS,
    )?;
    run(
        Command::new(&python)
            .args(["-m", "pip", "install", "--quiet"])
            .args(REQUIREMENTS),
        "installing the Python test packages",
        NEEDS,
    )?;
    std::fs::write(&ready, wanted).map_err(|e| format!("writing {}: {e}", ready.display()))?;
    Ok(python)
}

/// Run `command` in the open (its output shown); its failure says what
/// it was, and `needs` what the step needs where that may be the cause.
fn run(command: &mut Command, what: &str, needs: &str) -> Result<(), String> {
    match command.status() {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(format!("{what} failed ({status}).\n{needs}")),
        Err(e) => Err(format!(
            "{what}: cannot run {:?}: {e}.\n{NEEDS}",
            command.get_program()
        )),
    }
}
