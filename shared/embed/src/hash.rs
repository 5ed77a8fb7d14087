//! The content hash of a model's weights, for its seal. Hashing a 90–470 MB
//! graph costs 0.1–0.5 s, so a process hashes each file once while its size
//! and modification time stay the same.

use crate::EmbedError;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

type Key = (PathBuf, u64, Option<SystemTime>);

static HASHES: Mutex<Option<HashMap<Key, String>>> = Mutex::new(None);

/// sha256 of the file at `path`, hex.
pub fn sha256_of(path: &Path) -> Result<String, EmbedError> {
    let err = |e: std::io::Error| EmbedError::Weights { path: path.display().to_string(), reason: e.to_string() };
    let meta = std::fs::metadata(path).map_err(err)?;
    let key = (path.to_path_buf(), meta.len(), meta.modified().ok());
    if let Some(hex) = HASHES.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert_default().get(&key) {
        return Ok(hex.clone());
    }
    let mut file = std::fs::File::open(path).map_err(err)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf).map_err(err)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    let hex = hex::encode(hasher.finalize());
    HASHES.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert_default().insert(key, hex.clone());
    Ok(hex)
}
