//! With feature `libjpeg-turbo`: the region decoder (`csrc/jpeg_region.c`)
//! compiled against the system's libjpeg (libjpeg-turbo's libjpeg API,
//! Debian's `libjpeg62-turbo-dev`), found by pkg-config.

fn main() {
    println!("cargo::rerun-if-changed=csrc/jpeg_region.c");
    #[cfg(feature = "libjpeg-turbo")]
    region_decoder();
}

#[cfg(feature = "libjpeg-turbo")]
fn region_decoder() {
    let libjpeg = match pkg_config::Config::new().probe("libjpeg") {
        Ok(found) => found,
        Err(e) => panic!(
            "feature `libjpeg-turbo` needs libjpeg-turbo's libjpeg (Debian: `sudo apt-get install libjpeg62-turbo-dev`; `cargo xtask setup` installs it): pkg-config cannot find libjpeg: {e}"
        ),
    };
    let mut build = cc::Build::new();
    build.file("csrc/jpeg_region.c").warnings(true);
    for path in &libjpeg.include_paths {
        build.include(path);
    }
    build.compile("adl_jpeg_region");
}
