//! The on-disk cache of compiled machine code, so that the next process loads instead of
//! recompiling. This file is the policy (where, under which key, in which format, what
//! to do with a bad entry); making and loading the machine code is `cpu`'s business.
//!
//! - Directory: the context's `cache_dir`, else `VR_CACHE_DIR`, else
//!   `$XDG_CACHE_HOME/velociraptor`, else `~/.cache/velociraptor`; created private to
//!   the user (mode 0700). Used only when no one but the user (or root) can write it or
//!   its parents, and an entry only when it is a regular file of the user's that no one
//!   else can write (`cache_trust` has the rules): anything else is not loaded and not
//!   written, and the reason is kept for the host to show.
//! - Key: the canonical JSON of the specialized sub-module (the function and every
//!   function it calls, parameter types included), the compile options, the target
//!   (triple, CPU, features) and the compiler version (crate, LLVM, entry format). The
//!   file is named by a 64-bit hash of the key; the full key is stored in the entry and
//!   compared on load, so a hash collision or a file written for another key is a miss.
//! - Entry: magic, format version, key length and key, payload length, checksum of key
//!   and payload (FNV-1a 64), payload. A short, corrupt or foreign entry is counted,
//!   deleted and rebuilt, never loaded. Writes go to a temporary file renamed into
//!   place, so a reader never sees half an entry. The checksum detects accidents
//!   (truncation, bit rot), not an attacker: who can write the files is the defence.

use crate::runtime::cache_trust::{self, Problem};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

const MAGIC: &[u8; 8] = b"VRCODE\0\x01";
/// Bumped whenever the entry layout or the meaning of the payload changes.
pub const FORMAT_VERSION: u32 = 1;

/// FNV-1a, 64 bits: a stable hash (std's hasher may change between Rust releases).
pub fn fnv1a64(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in *p {
            h ^= *b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// Why an entry was not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reject {
    Truncated,
    BadMagic,
    OtherFormat(u32),
    OtherKey,
    BadChecksum,
}

/// What looking up a key found.
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The payload of a good entry.
    Hit(Vec<u8>),
    /// No entry, or a bad one (counted and deleted).
    Miss,
    /// An entry someone else could have written: not read, left in place (not
    /// overwritten either), and why.
    Untrusted(String),
}

pub struct DiskCache {
    /// The canonical path of a directory that passed `cache_trust::trusted_dir`.
    dir: PathBuf,
    pub hits: AtomicU64,
    pub writes: AtomicU64,
    pub rejects: AtomicU64,
}

impl DiskCache {
    /// `VR_CACHE_DIR`, else the XDG cache directory's `velociraptor`, else
    /// `~/.cache/velociraptor`; None when none can be named.
    pub fn default_dir() -> Option<PathBuf> {
        let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
        env("VR_CACHE_DIR")
            .or_else(|| env("XDG_CACHE_HOME").map(|d| d.join("velociraptor")))
            .or_else(|| env("HOME").map(|h| h.join(".cache").join("velociraptor")))
    }

    /// A cache in `dir`, created (mode 0700) when missing; refused when someone other
    /// than this user or root could write the directory or one of its parents.
    pub fn open(dir: &Path) -> Result<DiskCache, Problem> {
        cache_trust::create_private_dir(dir).map_err(|e| {
            Problem::Unusable(format!("cannot create the cache directory {}: {e}", dir.display()))
        })?;
        let dir = cache_trust::trusted_dir(dir)?;
        Ok(DiskCache {
            dir,
            hits: AtomicU64::new(0),
            writes: AtomicU64::new(0),
            rejects: AtomicU64::new(0),
        })
    }

    /// What a context given the default directory would do with it, checked without
    /// creating anything (`vr explain` prints it): `DIR: in use`, `DIR: not used:
    /// REASON`, `DIR: missing, made mode 0700 on first use`, or why there is none.
    pub fn describe_default() -> String {
        let Some(dir) = DiskCache::default_dir() else {
            return "none (VR_CACHE_DIR, XDG_CACHE_HOME and HOME are unset)".to_string();
        };
        if std::fs::symlink_metadata(&dir).is_err() {
            return format!("{}: missing, made mode 0700 on first use", dir.display());
        }
        match cache_trust::trusted_dir(&dir) {
            Ok(_) => format!("{}: in use", dir.display()),
            Err(p) => format!("{}: not used: {p}", dir.display()),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file an entry for `key` lives in.
    pub fn path_for(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{:016x}.vrcode", fnv1a64(&[key.as_bytes()])))
    }

    /// The entry for `key`: its payload, a miss, or why it was not read.
    pub fn load(&self, key: &str) -> Lookup {
        let path = self.path_for(key);
        let mut file = match cache_trust::open_entry(&path) {
            Ok(Some(f)) => f,
            Ok(None) => return Lookup::Miss,
            Err(Problem::Untrusted(why)) => return Lookup::Untrusted(why),
            // Unreadable for another reason (removed meanwhile, I/O error): compile.
            Err(Problem::Unusable(_)) => return Lookup::Miss,
        };
        let mut bytes = Vec::new();
        if file.read_to_end(&mut bytes).is_err() {
            return Lookup::Miss;
        }
        match decode(&bytes, key) {
            Ok(payload) => Lookup::Hit(payload.to_vec()),
            Err(_) => {
                self.reject(&path);
                Lookup::Miss
            }
        }
    }

    /// Count a bad entry and remove it so that it is rebuilt.
    pub fn reject(&self, path: &Path) {
        self.rejects.fetch_add(1, Ordering::Relaxed);
        let _ = std::fs::remove_file(path);
    }

    /// Store `payload` for `key` (atomically: temporary file, then rename). Failures
    /// are not errors of the compile: the cache is an optimization.
    pub fn store(&self, key: &str, payload: &[u8]) -> std::io::Result<()> {
        let path = self.path_for(key);
        let mut tmp = tempfile::NamedTempFile::new_in(&self.dir)?;
        // tempfile makes it 0600; set again, as the umask is not ours to trust.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            tmp.as_file().set_permissions(std::fs::Permissions::from_mode(0o600))?;
        }
        tmp.write_all(&encode(key, payload))?;
        tmp.as_file().sync_all()?;
        tmp.persist(&path).map_err(|e| e.error)?;
        self.writes.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

/// An entry's bytes.
pub fn encode(key: &str, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(40 + key.len() + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(key.len() as u64).to_le_bytes());
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&fnv1a64(&[key.as_bytes(), payload]).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// The payload of an entry for `key`, or why it is not one.
pub fn decode<'a>(bytes: &'a [u8], key: &str) -> Result<&'a [u8], Reject> {
    let mut at = 0usize;
    let mut take = |n: usize| -> Result<&'a [u8], Reject> {
        let end = at.checked_add(n).filter(|e| *e <= bytes.len()).ok_or(Reject::Truncated)?;
        let s = &bytes[at..end];
        at = end;
        Ok(s)
    };
    let u64_of = |s: &[u8]| u64::from_le_bytes(s.try_into().expect("8 bytes"));
    if take(8)? != MAGIC {
        return Err(Reject::BadMagic);
    }
    let version = u32::from_le_bytes(take(4)?.try_into().expect("4 bytes"));
    if version != FORMAT_VERSION {
        return Err(Reject::OtherFormat(version));
    }
    let key_len = u64_of(take(8)?);
    let stored_key = take(usize::try_from(key_len).map_err(|_| Reject::Truncated)?)?;
    let payload_len = u64_of(take(8)?);
    let checksum = u64_of(take(8)?);
    let payload = take(usize::try_from(payload_len).map_err(|_| Reject::Truncated)?)?;
    if take(1).is_ok() {
        // Trailing bytes: not an entry this code wrote.
        return Err(Reject::Truncated);
    }
    if fnv1a64(&[stored_key, payload]) != checksum {
        return Err(Reject::BadChecksum);
    }
    if stored_key != key.as_bytes() {
        return Err(Reject::OtherKey);
    }
    Ok(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_every_kind_of_damage() {
        let e = encode("key", b"machine code");
        assert_eq!(decode(&e, "key"), Ok(&b"machine code"[..]));
        assert_eq!(decode(&e, "other key"), Err(Reject::OtherKey));
        for cut in [0, 5, 20, e.len() - 1] {
            assert_eq!(decode(&e[..cut], "key"), Err(Reject::Truncated), "cut at {cut}");
        }
        let mut flipped = e.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert_eq!(decode(&flipped, "key"), Err(Reject::BadChecksum));
        let mut foreign = e.clone();
        foreign[0] = b'X';
        assert_eq!(decode(&foreign, "key"), Err(Reject::BadMagic));
        let mut newer = e.clone();
        newer[8] = 99;
        assert_eq!(decode(&newer, "key"), Err(Reject::OtherFormat(99)));
    }

    #[test]
    fn directory_is_private_and_bad_entries_are_deleted() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("a/b");
        let c = DiskCache::open(&dir).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700);
        }
        c.store("k", b"payload").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(c.path_for("k")).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "entries are private");
        }
        assert_eq!(c.load("k"), Lookup::Hit(b"payload".to_vec()));
        std::fs::write(c.path_for("k"), b"VRCODE").unwrap();
        assert_eq!(c.load("k"), Lookup::Miss);
        assert_eq!(c.rejects.load(Ordering::Relaxed), 1);
        assert!(!c.path_for("k").exists());
    }
}
