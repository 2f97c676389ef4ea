//! The file-backed sensors and readers over Azure Blob storage (`az://`),
//! against Azurite, Microsoft's emulator (started by `azure::Azurite`):
//! NumPy arrays and sensor folders, image folders, tables, PX4 logs, ROS
//! bags, roverd folders and MP4 videos (H.264, HEVC, AV1, VP9) read as the
//! local files; a wrong key refused by the server and named with the
//! object and what to check. A module of the `store` test binary (one
//! build fewer than a binary of its own).

use std::sync::OnceLock;
use std::time::Duration;

use adl::files::{RetryPolicy, Store};

use super::azure::{Azurite, CONTAINER, KEY};
use super::common::source_error;
use super::same_files;

fn quick() -> RetryPolicy {
    RetryPolicy::new(2, Duration::from_millis(20), Duration::from_millis(100))
}

/// The server, its container holding [`same_files::fixtures`] (put in
/// one call).
fn server() -> &'static Azurite {
    static FIXTURES: OnceLock<()> = OnceLock::new();
    let server = Azurite::shared();
    FIXTURES.get_or_init(|| server.put_tree("", same_files::fixtures().path()));
    server
}

fn store() -> Store {
    Store::open_with(&format!("az://{CONTAINER}"), &server().options(quick())).unwrap()
}

#[test]
fn npy_images_and_tables_in_azure_read_as_the_local_files() {
    same_files::npy_images_and_tables_read_as_the_local_files(&store(), "");
}

#[test]
fn px4_logs_bags_and_rover_folders_in_azure_read_as_the_local_files() {
    same_files::px4_logs_bags_and_rover_folders_read_as_the_local_files(&store(), "");
}

#[test]
fn videos_in_azure_decode_as_the_local_files() {
    same_files::videos_decode_as_the_local_files(&store(), "");
}

#[test]
fn a_wrong_key_or_a_missing_object_is_named_with_what_to_check() {
    let server = server();
    // Another valid key, not the account's: the server refuses the signature.
    let wrong = KEY.replace('E', "F");
    let store = Store::open_with(
        &format!("az://{CONTAINER}"),
        &server.options_with_key(&wrong, quick()),
    )
    .unwrap();
    let message = source_error(store.get("drive/imu.csv"), "drive/imu.csv");
    assert!(
        message.starts_with(&format!("az://{CONTAINER}/drive/imu.csv: access denied")),
        "{message}"
    );
    assert_eq!(store.stats().retries, 0, "{:?}", store.stats());
    let message = source_error(self::store().get("drive/nothing.csv"), "drive/nothing.csv");
    assert!(message.contains("not found"), "{message}");
}
