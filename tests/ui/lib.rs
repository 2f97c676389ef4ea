//! adl's compile-fail tests: `ui.rs` runs the cases of this folder with
//! trybuild. The library is empty; a package needs a target of its own.
