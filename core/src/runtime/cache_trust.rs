//! Who could have written the on-disk cache. The cache loads machine code into the host
//! process (R, Octave, Julia, C), so an entry is used only when it comes from a place no
//! one but this user (or root) can write: another user able to plant or replace an
//! entry could run code in this user's session. The checksum of `disk_cache` catches
//! accidents (truncation, bit rot), never an attacker, who can compute it too.
//!
//! The rules are OpenSSH's StrictModes for `~/.ssh`:
//!
//! - the cache directory is a directory owned by this user or root, not writable by
//!   group or others (the sticky bit does not excuse it: others could still add files);
//! - every parent, up to `/` or to the first sticky directory owned by this user or root
//!   (as `/tmp`), is owned by this user or root and not writable by group or others,
//!   except a root-owned sticky directory (its sticky bit keeps others from renaming or
//!   deleting what they do not own, so they cannot swap our directory for theirs);
//! - an entry is a regular file owned by this user, not writable by group or others. It
//!   is opened with `O_NOFOLLOW` and checked with `fstat` on the open descriptor, so what
//!   was checked is what is read (no window between a check and the open).
//!
//! The directory is checked through its canonical path (symlinks resolved), which the
//! cache then uses for every open. Directories the cache makes are created mode 0700 and
//! set to 0700 afterwards: the umask can only remove bits, and one that removes the
//! owner's would leave an unusable directory (XDG's base directory specification asks
//! for 0700 too).

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// Why a cache directory or entry is not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// Someone other than this user or root could have written it (the reason).
    Untrusted(String),
    /// It cannot be used at all: cannot be created, read or examined (the reason).
    Unusable(String),
}

impl Problem {
    pub fn reason(&self) -> &str {
        match self {
            Problem::Untrusted(r) | Problem::Unusable(r) => r,
        }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.reason())
    }
}

/// Create `dir` and any missing parent with mode 0700 (each directory this call made is
/// set to 0700 after it is made, whatever the umask). Existing directories are left as
/// they are: [`trusted_dir`] judges them.
#[cfg(unix)]
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    let mut missing = Vec::new();
    for d in dir.ancestors() {
        match std::fs::symlink_metadata(d) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => missing.push(d.to_path_buf()),
            _ => break,
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    for d in missing.iter().rev() {
        // A directory another process made at the same moment may not be ours to
        // change; the trust check then judges it as found.
        let _ = std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o700));
    }
    Ok(())
}

#[cfg(not(unix))]
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)
}

#[cfg(unix)]
fn euid() -> u32 {
    // SAFETY: geteuid cannot fail and has no preconditions.
    unsafe { libc::geteuid() }
}

/// `name (uid N)`, or `uid N` when the name is unknown.
#[cfg(unix)]
fn who(uid: u32) -> String {
    let mut buf = vec![0 as libc::c_char; 1024];
    // SAFETY: plain out-parameters; `buf` outlives the use of `pw.pw_name`.
    unsafe {
        let mut pw: libc::passwd = std::mem::zeroed();
        let mut out: *mut libc::passwd = std::ptr::null_mut();
        if libc::getpwuid_r(uid, &mut pw, buf.as_mut_ptr(), buf.len(), &mut out) == 0
            && !out.is_null()
            && !pw.pw_name.is_null()
        {
            let name = std::ffi::CStr::from_ptr(pw.pw_name).to_string_lossy();
            return format!("{name} (uid {uid})");
        }
    }
    format!("uid {uid}")
}

/// Who may write a file of `mode` besides its owner, or None.
fn also_writable_by(mode: u32) -> Option<&'static str> {
    match (mode & 0o020 != 0, mode & 0o002 != 0) {
        (true, true) => Some("group and others"),
        (true, false) => Some("its group"),
        (false, true) => Some("others"),
        (false, false) => None,
    }
}

/// The canonical path of cache directory `dir` when only this user or root can write
/// it and the entries in it, else why not.
#[cfg(unix)]
pub fn trusted_dir(dir: &Path) -> Result<PathBuf, Problem> {
    use std::os::unix::fs::MetadataExt;
    let canonical = std::fs::canonicalize(dir).map_err(|e| {
        Problem::Unusable(format!(
            "cannot resolve the cache directory {}: {e}",
            dir.display()
        ))
    })?;
    let me = euid();
    for (depth, d) in canonical.ancestors().enumerate() {
        let m = std::fs::symlink_metadata(d)
            .map_err(|e| Problem::Unusable(format!("cannot examine {}: {e}", d.display())))?;
        let what = if depth == 0 {
            "the cache directory"
        } else {
            "its parent"
        };
        if !m.is_dir() {
            return Err(Problem::Untrusted(format!(
                "{what} {} is not a directory",
                d.display()
            )));
        }
        if m.uid() != me && m.uid() != 0 {
            return Err(Problem::Untrusted(format!(
                "{what} {} is owned by {}, not by you ({}) or root",
                d.display(),
                who(m.uid()),
                who(me)
            )));
        }
        let sticky = m.mode() & 0o1000 != 0;
        // Others may write a root-owned sticky parent (/tmp) but not rename what is ours.
        let excused = depth > 0 && sticky && m.uid() == 0;
        if let Some(by) = also_writable_by(m.mode()).filter(|_| !excused) {
            return Err(Problem::Untrusted(format!(
                "{what} {} is writable by {by} (mode {:04o})",
                d.display(),
                m.mode() & 0o7777
            )));
        }
        if depth > 0 && sticky {
            break;
        }
    }
    Ok(canonical)
}

#[cfg(not(unix))]
pub fn trusted_dir(dir: &Path) -> Result<PathBuf, Problem> {
    Err(Problem::Unusable(format!(
        "the on-disk cache needs Unix ownership and modes to check who can write {}",
        dir.display()
    )))
}

/// Open cache entry `path` for reading if it is one this user alone could have written:
/// None when there is no entry, the open file when it passes, else why not. Checked on
/// the descriptor opened (no symlink followed), so the file checked is the file read.
#[cfg(unix)]
pub fn open_entry(path: &Path) -> Result<Option<File>, Problem> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    // O_NONBLOCK: a FIFO planted under an entry's name must not block the open.
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path);
    let file = match opened {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(Problem::Untrusted(format!(
                "the entry {} is a symbolic link",
                path.display()
            )))
        }
        Err(e) => {
            return Err(Problem::Unusable(format!(
                "cannot open the entry {}: {e}",
                path.display()
            )))
        }
    };
    let m = file.metadata().map_err(|e| {
        Problem::Unusable(format!("cannot examine the entry {}: {e}", path.display()))
    })?;
    if !m.is_file() {
        return Err(Problem::Untrusted(format!(
            "the entry {} is not a regular file",
            path.display()
        )));
    }
    let me = euid();
    if m.uid() != me {
        return Err(Problem::Untrusted(format!(
            "the entry {} is owned by {}, not by you ({})",
            path.display(),
            who(m.uid()),
            who(me)
        )));
    }
    if let Some(by) = also_writable_by(m.mode()) {
        return Err(Problem::Untrusted(format!(
            "the entry {} is writable by {by} (mode {:04o})",
            path.display(),
            m.mode() & 0o7777
        )));
    }
    Ok(Some(file))
}

#[cfg(not(unix))]
pub fn open_entry(path: &Path) -> Result<Option<File>, Problem> {
    Err(Problem::Unusable(format!(
        "cannot check who wrote {}",
        path.display()
    )))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn chmod(p: &Path, mode: u32) {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
    }

    /// A private scratch directory (mode 0700 under the system's temporary directory).
    fn scratch() -> tempfile::TempDir {
        let t = tempfile::tempdir().unwrap();
        chmod(t.path(), 0o700);
        t
    }

    #[test]
    fn created_directories_are_0700_whatever_the_umask() {
        let t = scratch();
        let dir = t.path().join("a/b/c");
        // SAFETY: umask only changes this process's mode mask; restored below. Other
        // tests of this binary create files too, and a umask of 0o077 only narrows them.
        let old = unsafe { libc::umask(0o077) };
        create_private_dir(&dir).unwrap();
        unsafe { libc::umask(old) };
        for d in ["a", "a/b", "a/b/c"] {
            assert_eq!(mode(&t.path().join(d)), 0o700, "{d}");
        }
        assert_eq!(
            trusted_dir(&dir).unwrap(),
            std::fs::canonicalize(&dir).unwrap()
        );
    }

    #[test]
    fn writable_directories_and_parents_are_refused() {
        let t = scratch();
        let dir = t.path().join("p/cache");
        create_private_dir(&dir).unwrap();
        chmod(&dir, 0o777);
        let e = trusted_dir(&dir).unwrap_err();
        assert!(
            matches!(&e, Problem::Untrusted(r) if r.contains("the cache directory") && r.contains("writable by group and others (mode 0777)")),
            "{e:?}"
        );
        chmod(&dir, 0o700);
        chmod(&t.path().join("p"), 0o770);
        let e = trusted_dir(&dir).unwrap_err();
        assert!(
            matches!(&e, Problem::Untrusted(r) if r.contains("its parent") && r.contains("writable by its group (mode 0770)")),
            "{e:?}"
        );
        // A sticky cache directory is still one where others can add entries.
        chmod(&t.path().join("p"), 0o700);
        chmod(&dir, 0o1777);
        assert!(matches!(trusted_dir(&dir), Err(Problem::Untrusted(_))));
    }

    #[test]
    fn a_world_writable_sticky_parent_is_fine_only_when_roots() {
        // (The system's /tmp as a parent: capi/tests/cache_trust.rs.)
        let t = scratch();
        let sticky = t.path().join("sticky");
        std::fs::create_dir(&sticky).unwrap();
        chmod(&sticky, 0o1777);
        let dir = sticky.join("cache");
        create_private_dir(&dir).unwrap();
        if euid() == 0 {
            // The sticky parent is root's, as /tmp is: others cannot swap our directory.
            assert!(trusted_dir(&dir).is_ok());
        } else {
            // A user's own world-writable sticky directory is not /tmp's case.
            assert!(matches!(trusted_dir(&dir), Err(Problem::Untrusted(_))));
        }
    }

    #[test]
    fn entries_must_be_private_regular_files() {
        let t = scratch();
        let entry = t.path().join("e.vrcode");
        assert!(matches!(open_entry(&entry), Ok(None)), "no entry is a miss");
        std::fs::write(&entry, b"code").unwrap();
        chmod(&entry, 0o600);
        assert!(matches!(open_entry(&entry), Ok(Some(_))));
        chmod(&entry, 0o620);
        let e = open_entry(&entry).unwrap_err();
        assert!(
            matches!(&e, Problem::Untrusted(r) if r.contains("writable by its group (mode 0620)")),
            "{e:?}"
        );
        chmod(&entry, 0o600);
        let link = t.path().join("l.vrcode");
        std::os::unix::fs::symlink(&entry, &link).unwrap();
        let e = open_entry(&link).unwrap_err();
        assert!(
            matches!(&e, Problem::Untrusted(r) if r.contains("is a symbolic link")),
            "{e:?}"
        );
        let fifo = t.path().join("f.vrcode");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = open_entry(&fifo).unwrap_err();
        assert!(
            matches!(&e, Problem::Untrusted(r) if r.contains("not a regular file")),
            "{e:?}"
        );
    }
}
