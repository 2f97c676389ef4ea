// Parallel branches over the keys of a keyed sample (Record, HashMap,
// BTreeMap): alone, in braces, or after the sample type.
use std::collections::{BTreeMap, HashMap};

use adl::pipeline::run;
use adl::{pipeline, transform};

#[transform]
fn double(x: i64) -> i64 {
    x * 2
}

pub(crate) fn main() {
    let raw = || BTreeMap::from([("a".to_owned(), 1i64), ("b".to_owned(), 2)]);

    let bare = pipeline! { "a": { sample: double, collate: default }, "b": { collate: default } };
    let braced = pipeline! {
        pre: |m: BTreeMap<String, i64>| m,
        { "a": { collate: default }, "b": { collate: default } },
    };
    let typed = pipeline! {
        HashMap<String, i64> {
            "a": { sample: |x| x + 1, collate: default },
        }
    };
    assert_eq!(run(&bare, vec![raw()]).unwrap()["a"][0], 2);
    assert_eq!(run(&braced, vec![raw()]).unwrap()["b"][0], 2);
    // The sample type also tells the pipeline what it takes.
    assert_eq!(
        run(&typed, vec![raw().into_iter().collect()]).unwrap()["a"][0],
        2
    );

    // A keyed form inside a struct form.
    struct Sample {
        sensors: BTreeMap<String, i64>,
    }
    let nested = pipeline! {
        Sample { sensors: { "a": { collate: default } } }
    };
    let batch = run(&nested, vec![Sample { sensors: raw() }]).unwrap();
    assert_eq!(batch.sensors["a"][0], 1);
}
