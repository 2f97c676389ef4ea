// #[transform] on functions returning a Result: std's, an alias's, adl's.
use adl::Transform;

#[adl::transform]
fn parse(s: String) -> Result<u32, std::num::ParseIntError> {
    s.parse()
}

#[adl::transform]
fn read(path: String) -> std::io::Result<String> {
    std::fs::read_to_string(path)
}

#[adl::transform]
fn checked(x: u32) -> adl::Result<u32> {
    Ok(x)
}

#[adl::transform]
fn boxed(x: u32) -> Result<u32, Box<dyn std::error::Error + Send + Sync>> {
    Ok(x)
}

#[adl::transform]
fn text(x: u32) -> Result<u32, &'static str> {
    if x > 0 { Ok(x) } else { Err("zero") }
}

pub(crate) fn main() {
    let _: u32 = parse {}.apply("1".into()).unwrap();
    assert!(read {}.apply("/nonexistent".into()).is_err());
    let _: u32 = checked {}.apply(1).unwrap();
    let _: u32 = boxed {}.apply(1).unwrap();
    assert!(text {}.apply(0).is_err());
}
