//! The natural order of file names: `frame_9` before `frame_10`.

use std::cmp::Ordering;

/// `a` and `b` in natural order: runs of ASCII digits compare as numbers
/// (`9` < `10`; `007` = `7`), everything else byte by byte; names equal
/// so are then ordered byte by byte (`f07` before `f7`). Zero-padded names
/// come out in the same order as lexically.
pub(crate) fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    loop {
        match (x.first(), y.first()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(c), Some(d)) if c.is_ascii_digit() && d.is_ascii_digit() => {
                let (number_x, rest_x) = split_digits(x);
                let (number_y, rest_y) = split_digits(y);
                let (number_x, number_y) = (trim_zeros(number_x), trim_zeros(number_y));
                let order = number_x
                    .len()
                    .cmp(&number_y.len())
                    .then_with(|| number_x.cmp(number_y));
                if order != Ordering::Equal {
                    return order;
                }
                (x, y) = (rest_x, rest_y);
            }
            (Some(c), Some(d)) => {
                if c != d {
                    return c.cmp(d);
                }
                (x, y) = (&x[1..], &y[1..]);
            }
        }
    }
}

/// The leading run of ASCII digits of `s`, and the rest.
fn split_digits(s: &[u8]) -> (&[u8], &[u8]) {
    let end = s
        .iter()
        .position(|c| !c.is_ascii_digit())
        .unwrap_or(s.len());
    s.split_at(end)
}

/// `digits` without its leading zeros.
fn trim_zeros(digits: &[u8]) -> &[u8] {
    let start = digits
        .iter()
        .position(|&c| c != b'0')
        .unwrap_or(digits.len());
    &digits[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(names: &[&str]) -> Vec<String> {
        let mut names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        names.sort_by(|a, b| natural_cmp(a, b));
        names
    }

    #[test]
    fn numbers_compare_as_numbers() {
        assert_eq!(
            sorted(&[
                "frame_10.jpg",
                "frame_9.jpg",
                "frame_1.jpg",
                "frame_100.jpg"
            ]),
            [
                "frame_1.jpg",
                "frame_9.jpg",
                "frame_10.jpg",
                "frame_100.jpg"
            ]
        );
        assert_eq!(
            sorted(&["0010.png", "0002.png", "0001.png"]),
            ["0001.png", "0002.png", "0010.png"]
        );
        assert_eq!(
            sorted(&["a2b10", "a2b9", "a10b1"]),
            ["a2b9", "a2b10", "a10b1"]
        );
        assert_eq!(sorted(&["f7", "f07", "f6"]), ["f6", "f07", "f7"]);
        assert_eq!(sorted(&["b", "a1", "a"]), ["a", "a1", "b"]);
        // Longer than any integer type: compared digit by digit.
        assert_eq!(
            sorted(&["x123456789012345678901234567890", "x99"]),
            ["x99", "x123456789012345678901234567890"]
        );
    }
}
