//! The file-backed sensors and readers over Google Cloud Storage (`gs://`):
//! object_store's GCS client, as adl opens it for a `gs://` URL, against a
//! real server on localhost. A module of the `store` test binary (one
//! build and one server fewer than a binary of its own): its fixtures sit
//! under `gcs/` in the S3 tests' bucket.
//!
//! The server is SeaweedFS's (the S3 tests' `s3::S3Server`), with the
//! client's base URL set to it. No GCS emulator installs from the
//! registries the test command reaches: fake-gcs-server ships as a Go
//! binary or a container image only, and PyPI's `gcp-storage-emulator`
//! answers neither HEAD nor an XML listing. The requests object_store's GCS
//! client reads with are those of GCS's XML API, which is S3's: `GET` and
//! `HEAD` of `/BUCKET/KEY` with byte ranges, and listings with
//! `list-type=2`; here a real server answers them. The objects are put
//! with the S3 API beforehand (the reads are what is tested). Left
//! untested by this: GCS's own answers where they differ from S3's, and
//! Google's OAuth (the client sends a bearer token given in its settings,
//! or a JWT it signs with a service account's key, as against GCS; the
//! server, configured without identities, takes any).

use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

use adl::Sensor;
use adl::files::{RetryPolicy, Store, StoreOptions, Table};

use super::common::source_error;
use super::s3::{BUCKET, S3Server};
use super::same_files;

/// Where the fixtures are in the bucket.
const UNDER: &str = "gcs/";

fn quick() -> RetryPolicy {
    RetryPolicy::new(2, Duration::from_millis(20), Duration::from_millis(100))
}

/// The server, its bucket holding [`same_files::fixtures`] under
/// [`UNDER`].
fn server() -> &'static S3Server {
    static FIXTURES: OnceLock<()> = OnceLock::new();
    let server = S3Server::shared();
    FIXTURES.get_or_init(|| {
        server.put_tree(
            UNDER.trim_end_matches('/'),
            same_files::fixtures().path(),
            |_| false,
        )
    });
    server
}

/// Options for a `gs://` store whose requests go to `server`, with a
/// bearer token (as `gcloud auth print-access-token` gives one).
fn options(server: &S3Server) -> StoreOptions {
    StoreOptions::default()
        .with_retry(quick())
        .with_config("google_base_url", server.endpoint())
        .with_config("google_bearer_token", "a-token")
        .with_config("allow_http", "true")
}

fn store() -> Store {
    Store::open_with(&format!("gs://{BUCKET}"), &options(server())).unwrap()
}

#[test]
fn npy_images_and_tables_in_gcs_read_as_the_local_files() {
    same_files::npy_images_and_tables_read_as_the_local_files(&store(), UNDER);
}

#[test]
fn px4_logs_bags_and_rover_folders_in_gcs_read_as_the_local_files() {
    same_files::px4_logs_bags_and_rover_folders_read_as_the_local_files(&store(), UNDER);
}

#[test]
fn videos_in_gcs_decode_as_the_local_files() {
    same_files::videos_decode_as_the_local_files(&store(), UNDER);
}

#[test]
fn urls_of_objects_and_folders_in_gcs_are_read_through_the_shared_store() {
    // What a user's script does: the store of the bucket made the one that
    // `gs://` URLs are read through, then sensors opened from URLs.
    let _ = store().share();
    let remote = Table::open("imu", format!("gs://{BUCKET}/{UNDER}drive/imu.csv"), "t").unwrap();
    assert_eq!(remote.metadata().as_slice(), &[0.0, 0.01]);
    let shared = Store::shared(&format!("gs://{BUCKET}/{UNDER}drive")).unwrap();
    assert_eq!(shared.root(), format!("gs://{BUCKET}"));
    assert_eq!(
        shared.list(&format!("{UNDER}drive/radar")).unwrap(),
        [
            format!("{UNDER}drive/radar/data.npy"),
            format!("{UNDER}drive/radar/ts.npy")
        ]
    );
}

/// A service account's key, as a JSON key file holds it: the client signs
/// a JWT with it for each request, as against GCS.
#[test]
fn a_service_account_key_signs_the_requests() {
    let server = server();
    let key = service_account_key();
    let options = StoreOptions::default()
        .with_retry(quick())
        .with_config("google_base_url", server.endpoint())
        .with_config("google_service_account_key", key)
        .with_config("allow_http", "true");
    let store = Store::open_with(&format!("gs://{BUCKET}"), &options).unwrap();
    let table = Table::open("imu", store.at(&format!("{UNDER}drive/imu.csv")), "t").unwrap();
    assert_eq!(table.len(), 2);
}

/// A server that checks credentials (SeaweedFS with one identity, which a
/// bearer token is not): the answer is named with the object and the
/// credentials to check, and not retried; a missing object is named too.
#[test]
fn refused_credentials_or_a_missing_object_are_named_with_what_to_check() {
    let checking = S3Server::start_checking_credentials();
    let store = Store::open_with(&format!("gs://{BUCKET}"), &options(&checking)).unwrap();
    let message = source_error(store.get("drive/imu.csv"), "drive/imu.csv");
    assert!(
        message.starts_with(&format!(
            "gs://{BUCKET}/drive/imu.csv: access denied: check GOOGLE_SERVICE_ACCOUNT or GOOGLE_APPLICATION_CREDENTIALS"
        )),
        "{message}"
    );
    assert_eq!(store.stats().retries, 0, "{:?}", store.stats());
    let message = source_error(self::store().get("gcs/nothing.csv"), "gcs/nothing.csv");
    assert!(
        message.starts_with(&format!("gs://{BUCKET}/gcs/nothing.csv: no such object")),
        "{message}"
    );
}

/// No credentials given, none in the environment: object_store asks the
/// instance's metadata server for a token, which a machine outside Google
/// Cloud does not have; the error names the object and what to set.
#[test]
fn missing_credentials_are_named_with_the_object_and_what_to_set() {
    let given = [
        "GOOGLE_SERVICE_ACCOUNT",
        "GOOGLE_SERVICE_ACCOUNT_PATH",
        "GOOGLE_SERVICE_ACCOUNT_KEY",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "GOOGLE_BEARER_TOKEN",
    ];
    let home = std::env::var_os("HOME").unwrap_or_default();
    let gcloud = Path::new(&home).join(".config/gcloud/application_default_credentials.json");
    if given.iter().any(|name| std::env::var_os(name).is_some()) || gcloud.exists() {
        eprintln!("skipped: this environment gives GCS credentials");
        return;
    }
    let options = StoreOptions::default()
        .with_retry(quick())
        .with_connect_timeout(Duration::from_secs(1))
        .with_timeout(Duration::from_secs(2))
        .with_config("google_base_url", server().endpoint())
        .with_config("allow_http", "true");
    let store = Store::open_with(&format!("gs://{BUCKET}"), &options).unwrap();
    let message = source_error(store.get("drive/imu.csv"), "drive/imu.csv");
    assert!(
        message.starts_with(&format!(
            "gs://{BUCKET}/drive/imu.csv: no access token: check GOOGLE_SERVICE_ACCOUNT or GOOGLE_APPLICATION_CREDENTIALS"
        )),
        "{message}"
    );
}

/// A service account's key file made for the test: a new RSA key (by
/// `openssl`), the fields object_store reads.
fn service_account_key() -> String {
    let out = std::process::Command::new("openssl")
        .args([
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:2048",
        ])
        .output()
        .expect("openssl, to make a service account's key");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pem = String::from_utf8(out.stdout).unwrap();
    format!(
        r#"{{"type": "service_account", "project_id": "adl-test", "private_key_id": "1", "private_key": {}, "client_email": "tests@adl-test.iam.gserviceaccount.com", "client_id": "1", "token_uri": "https://oauth2.googleapis.com/token"}}"#,
        json_string(&pem)
    )
}

/// `text` as a JSON string.
fn json_string(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('\n', "\\n"))
}
