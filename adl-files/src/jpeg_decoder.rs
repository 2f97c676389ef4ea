//! Which decoder JPEG frames go to in this process: libjpeg-turbo where
//! adl-files is built with feature `libjpeg-turbo`, else zune-jpeg (the
//! Rust decoder), unless the environment variable [`JPEG_DECODER_VARIABLE`]
//! says otherwise.

use std::sync::OnceLock;

/// The environment variable that picks the JPEG decoder: `zune-jpeg` sends
/// every JPEG frame to zune-jpeg, as a build without feature
/// `libjpeg-turbo` does (the same pixels as such a build, in a build that
/// has the feature); `libjpeg-turbo` asks for libjpeg-turbo (the default
/// where the build has it). Read once, at the first JPEG frame; any other
/// value, or `libjpeg-turbo` in a build without it, makes each JPEG
/// frame's read fail with an error that names the variable.
pub const JPEG_DECODER_VARIABLE: &str = "ADL_JPEG_DECODER";

/// Whether JPEG frames are decoded by libjpeg-turbo in this process: the
/// build has feature `libjpeg-turbo`, and [`JPEG_DECODER_VARIABLE`] does not
/// say `zune-jpeg`. `false` where that variable holds a value it does not
/// take (JPEG frames then fail to read, naming it).
///
/// ```
/// // Without the variable set, libjpeg-turbo where the build has it.
/// # if std::env::var_os(adl_files::JPEG_DECODER_VARIABLE).is_none() {
/// assert_eq!(adl_files::libjpeg_turbo_decodes(), cfg!(feature = "libjpeg-turbo"));
/// # }
/// ```
pub fn libjpeg_turbo_decodes() -> bool {
    chosen().unwrap_or(false)
}

/// [`libjpeg_turbo_decodes`], or why the variable's value is not taken.
pub(crate) fn chosen() -> Result<bool, String> {
    static CHOSEN: OnceLock<Result<bool, String>> = OnceLock::new();
    CHOSEN
        .get_or_init(|| {
            let value = std::env::var_os(JPEG_DECODER_VARIABLE);
            choice(
                value.as_deref().map(|v| v.to_string_lossy()).as_deref(),
                cfg!(feature = "libjpeg-turbo"),
            )
        })
        .clone()
}

/// What the variable's `value` (`None`: not set) chooses in a build that
/// has libjpeg-turbo (`built`) or not: whether libjpeg-turbo decodes.
fn choice(value: Option<&str>, built: bool) -> Result<bool, String> {
    match value.map(str::trim) {
        None | Some("") => Ok(built),
        Some("zune-jpeg") => Ok(false),
        Some("libjpeg-turbo") if built => Ok(true),
        Some("libjpeg-turbo") => Err(format!(
            "{JPEG_DECODER_VARIABLE}=libjpeg-turbo, but this build of adl has no libjpeg-turbo (adl's feature `libjpeg-turbo`): unset it, or set it to zune-jpeg"
        )),
        Some(other) => Err(format!(
            "{JPEG_DECODER_VARIABLE}={other:?} is neither `zune-jpeg` nor `libjpeg-turbo`: set it to one of them, or unset it"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::choice;

    #[test]
    fn unset_or_empty_is_what_the_build_has() {
        for built in [false, true] {
            assert_eq!(choice(None, built), Ok(built));
            assert_eq!(choice(Some(" "), built), Ok(built));
        }
    }

    #[test]
    fn zune_jpeg_is_taken_by_every_build() {
        assert_eq!(choice(Some("zune-jpeg"), true), Ok(false));
        assert_eq!(choice(Some("zune-jpeg"), false), Ok(false));
    }

    #[test]
    fn libjpeg_turbo_only_where_it_was_built() {
        assert_eq!(choice(Some("libjpeg-turbo"), true), Ok(true));
        let err = choice(Some("libjpeg-turbo"), false).unwrap_err();
        assert!(err.contains("ADL_JPEG_DECODER=libjpeg-turbo"), "{err}");
        assert!(err.contains("feature `libjpeg-turbo`"), "{err}");
    }

    #[test]
    fn another_value_is_named() {
        let err = choice(Some("turbo"), true).unwrap_err();
        assert!(err.contains("ADL_JPEG_DECODER=\"turbo\""), "{err}");
        assert!(err.contains("`zune-jpeg` nor `libjpeg-turbo`"), "{err}");
    }
}
