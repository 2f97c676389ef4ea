//! Bad input to the synchronization policies: each is a typed error whose
//! message names the sensor (or parameter) and the offending value.

use adl::Error;
use adl::Synchronization;
use adl::sync::{Bound, Decimate, Empty, Margin, Nearest, Next};

const GOOD: [f64; 5] = [0.0, 0.1, 0.2, 0.3, 0.4];

/// Every policy, synchronizing to sensor "good".
fn policies() -> Vec<(&'static str, Box<dyn Synchronization>)> {
    vec![
        ("Empty", Box::new(Empty)),
        ("Next", Box::new(Next::new("good"))),
        ("Nearest", Box::new(Nearest::new("good", 0.1).unwrap())),
        (
            "Decimate",
            Box::new(Decimate::new(Next::new("good"), 2).unwrap()),
        ),
        (
            "Decimate before",
            Box::new(
                Decimate::new(Nearest::new("good", 0.1).unwrap(), 2)
                    .unwrap()
                    .reference("good"),
            ),
        ),
    ]
}

/// Synchronize `good` with a sensor `bad` of timestamps `bad`, with every
/// policy, and hand each error to `check`.
fn each_policy(bad: &[f64], check: impl Fn(&str, Error)) {
    for (policy, sync) in policies() {
        match sync.synchronize(&[("good", &GOOD[..]), ("bad", bad)]) {
            Ok(idx) => panic!("{policy}: accepted {bad:?}: {idx:?}"),
            Err(e) => check(policy, e),
        }
    }
}

fn says(policy: &str, e: &Error, parts: &[&str]) {
    let msg = e.to_string();
    for part in parts {
        assert!(
            msg.contains(part),
            "{policy}: `{msg}` does not mention {part}"
        );
    }
}

#[test]
fn unsorted_timestamps() {
    each_policy(&[0.0, 0.2, 0.1, 0.3], |p, e| {
        assert!(
            matches!(e, Error::UnsortedTimestamps { index: 2, .. }),
            "{p}: {e:?}"
        );
        says(p, &e, &["`bad`", "[2] = 0.1", "[1] = 0.2"]);
    });
}

#[test]
fn nan_timestamp() {
    each_policy(&[0.0, f64::NAN, 0.3], |p, e| {
        assert!(
            matches!(e, Error::NonFiniteTimestamp { index: 1, .. }),
            "{p}: {e:?}"
        );
        says(p, &e, &["`bad`", "[1]", "NaN"]);
    });
}

#[test]
fn infinite_timestamps() {
    each_policy(&[0.0, 0.1, f64::INFINITY], |p, e| {
        assert!(
            matches!(e, Error::NonFiniteTimestamp { index: 2, .. }),
            "{p}: {e:?}"
        );
        says(p, &e, &["`bad`", "[2]", "inf"]);
    });
    each_policy(&[f64::NEG_INFINITY, 0.1], |p, e| {
        assert!(
            matches!(e, Error::NonFiniteTimestamp { index: 0, .. }),
            "{p}: {e:?}"
        );
        says(p, &e, &["`bad`", "-inf"]);
    });
}

#[test]
fn constant_and_all_zero_timestamps() {
    each_policy(&[0.25, 0.25, 0.25], |p, e| {
        assert!(
            matches!(e, Error::ConstantTimestamps { len: 3, .. }),
            "{p}: {e:?}"
        );
        says(p, &e, &["`bad`", "3 timestamps", "0.25"]);
    });
    each_policy(&[0.0; 8], |p, e| {
        assert!(
            matches!(e, Error::ConstantTimestamps { len: 8, .. }),
            "{p}: {e:?}"
        );
        says(p, &e, &["`bad`", "8 timestamps equal 0"]);
    });
}

#[test]
fn empty_sensor() {
    let ts = [("good", &GOOD[..]), ("bad", &[][..])];
    assert!(Empty.synchronize(&ts).unwrap().is_empty());
    let e = Next::new("good").synchronize(&ts).unwrap_err();
    assert!(
        matches!(
            e,
            Error::EmptySensor {
                needed_for: "Next synchronization",
                ..
            }
        ),
        "{e:?}"
    );
    says("Next", &e, &["`bad`", "no samples"]);
    let e = Nearest::new("good", 0.1)
        .unwrap()
        .synchronize(&ts)
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::EmptySensor {
                needed_for: "Nearest synchronization",
                ..
            }
        ),
        "{e:?}"
    );
    says("Nearest", &e, &["`bad`", "no samples"]);
    // The reference itself empty.
    let e = Next::new("bad").synchronize(&ts).unwrap_err();
    assert!(matches!(e, Error::EmptySensor { .. }), "{e:?}");
}

#[test]
fn missing_reference() {
    let ts = [("good", &GOOD[..]), ("other", &GOOD[..])];
    let policies: Vec<Box<dyn Synchronization>> = vec![
        Box::new(Next::new("lidar")),
        Box::new(Nearest::new("lidar", 0.1).unwrap()),
        Box::new(Decimate::new(Next::new("lidar"), 3).unwrap()),
    ];
    for sync in policies {
        let e = sync.synchronize(&ts).unwrap_err();
        assert!(
            matches!(
                e,
                Error::UnknownSensor {
                    role: "reference",
                    ..
                }
            ),
            "{e:?}"
        );
        says("reference", &e, &["`lidar`", "good, other"]);
    }
    let e = Decimate::new(Next::new("good"), 3)
        .unwrap()
        .reference("lidar")
        .synchronize(&ts)
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::UnknownSensor {
                role: "decimated",
                ..
            }
        ),
        "{e:?}"
    );
    says("Decimate", &e, &["`lidar`"]);
}

#[test]
fn bad_tolerance() {
    for (tol, shown) in [
        (-0.5, "-0.5"),
        (f64::NAN, "NaN"),
        (f64::NEG_INFINITY, "-inf"),
    ] {
        let e = Nearest::new("good", tol).unwrap_err();
        assert!(matches!(e, Error::InvalidParameter { .. }), "{e:?}");
        says("Nearest", &e, &["tolerance", shown]);
    }
}

#[test]
fn bad_margins() {
    let ts = [("good", &GOOD[..]), ("short", &[0.1, 0.2][..])];
    let cases = [
        (Margin::samples(-1, 0), "`good`", "-1 samples"),
        (Margin::samples(0, -2), "`good`", "-2 samples"),
        (Margin::samples(2, 0), "`short`", "2 samples"),
        (Margin::samples(0, 5), "`good`", "5 samples"),
        (Margin::seconds(0.45, 0.0), "`good`", "0.45 s"),
        (Margin::seconds(0.0, 1.5), "`good`", "1.5 s"),
        (
            Margin::new(Bound::Seconds(f64::NAN), Bound::Samples(0)),
            "`good`",
            "NaN",
        ),
    ];
    for (margin, sensor, value) in cases {
        for sync in [
            Box::new(Next::new("good").margin(margin)) as Box<dyn Synchronization>,
            Box::new(Nearest::new("good", 0.1).unwrap().margin(margin)),
        ] {
            let e = sync.synchronize(&ts).unwrap_err();
            assert!(
                matches!(e, Error::InvalidParameter { .. }),
                "{margin:?}: {e:?}"
            );
            says("margin", &e, &["margin", sensor, value]);
        }
    }
    // Negative margins in seconds only widen the window: no error.
    let wide = Next::new("good")
        .margin(Margin::seconds(-1.0, -1.0))
        .synchronize(&ts)
        .unwrap();
    assert_eq!(wide.column("good"), Some(&[1, 2][..]));
    // A per-sensor margin for a sensor the trace does not have.
    let e = Next::new("good")
        .margin(vec![("lidar".to_owned(), Margin::samples(1, 1))])
        .synchronize(&ts)
        .unwrap_err();
    assert!(
        matches!(e, Error::UnknownSensor { role: "margin", .. }),
        "{e:?}"
    );
    says("margin", &e, &["`lidar`", "good, short"]);
}

#[test]
fn zero_decimation_factor() {
    let e = Decimate::new(Empty, 0).unwrap_err();
    assert!(matches!(e, Error::InvalidParameter { .. }), "{e:?}");
    says("Decimate", &e, &["factor", "0"]);
}
