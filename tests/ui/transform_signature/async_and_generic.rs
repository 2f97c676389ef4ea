// Neither async nor generic.
#[adl::transform]
async fn fetch(url: String) -> Vec<u8> {
    url.into_bytes()
}

#[adl::transform]
fn identity<T>(x: T) -> T {
    x
}

fn main() {}
