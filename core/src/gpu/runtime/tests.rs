//! VRRuntime's tables and protocol on a fake device (host memory standing in for device
//! buffers) that counts every transfer; "kernels" write the fake buffers directly.

use super::*;
use crate::vrir::types::ScalarType;
use std::cell::RefCell;
use std::rc::Rc;

#[derive(Default)]
struct Fake {
    allocs: usize,
    /// Allocation number `n` (1-based) fails as a device out of memory.
    fail_alloc: Option<usize>,
    /// Every download fails as a lost device.
    fail_downloads: bool,
}

type FakeBuf = Rc<RefCell<Vec<u8>>>;

fn fault(message: &str, waited: bool) -> DeviceError {
    DeviceError {
        message: message.to_string(),
        fault: true,
        waited,
    }
}

impl Device for Fake {
    type Buffer = FakeBuf;
    fn alloc(&mut self, bytes: usize) -> Result<FakeBuf, DeviceError> {
        self.allocs += 1;
        if self.fail_alloc == Some(self.allocs) {
            return Err(fault("alloc: CL_MEM_OBJECT_ALLOCATION_FAILURE", false));
        }
        // Garbage, so that a missing upload shows.
        Ok(Rc::new(RefCell::new(vec![0xAB; bytes])))
    }
    fn upload(
        &mut self,
        buf: &FakeBuf,
        offset: usize,
        host: *const u8,
        bytes: usize,
    ) -> Result<(), DeviceError> {
        let src = unsafe { std::slice::from_raw_parts(host, bytes) };
        buf.borrow_mut()[offset..offset + bytes].copy_from_slice(src);
        Ok(())
    }
    fn download(
        &mut self,
        buf: &FakeBuf,
        offset: usize,
        host: *mut u8,
        bytes: usize,
    ) -> Result<(), DeviceError> {
        if self.fail_downloads {
            return Err(fault("download: CL_DEVICE_NOT_AVAILABLE", true));
        }
        let dst = unsafe { std::slice::from_raw_parts_mut(host, bytes) };
        dst.copy_from_slice(&buf.borrow()[offset..offset + bytes]);
        Ok(())
    }
    fn copy(
        &mut self,
        src: &FakeBuf,
        so: usize,
        dst: &FakeBuf,
        d: usize,
        bytes: usize,
    ) -> Result<(), DeviceError> {
        let v: Vec<u8> = src.borrow()[so..so + bytes].to_vec();
        dst.borrow_mut()[d..d + bytes].copy_from_slice(&v);
        Ok(())
    }
    fn finish(&mut self) -> Result<(), DeviceError> {
        Ok(())
    }
}

fn view(data: &mut [f64], start: usize, len: usize) -> HostArray {
    HostArray {
        data: data[start..].as_mut_ptr() as *mut u8,
        elem: ScalarType::F64,
        dims: vec![len as i64],
        strides: vec![1],
    }
}

/// A fake kernel: element `i` of the array bound at `b` becomes `f(i)`.
fn kernel(rt: &mut Runtime<Fake>, b: Bound, len: usize, f: impl Fn(usize) -> f64) {
    let buf = rt.buffer(b.buffer).clone();
    let mut bytes = buf.borrow_mut();
    for i in 0..len {
        let at = (b.offset as usize + i) * 8;
        bytes[at..at + 8].copy_from_slice(&f(i).to_ne_bytes());
    }
}

#[test]
fn two_views_of_one_array_share_one_buffer_and_both_kernels_writes_come_home() {
    let mut a: Vec<f64> = (0..10).map(|i| i as f64).collect();
    let mut rt = Runtime::new(Fake::default());
    let whole = view(&mut a, 0, 10);
    let left = view(&mut a, 0, 5);
    let right = view(&mut a, 5, 5);
    // The whole array first, then its halves: one row of the buffer table.
    let bw = rt.bind("a", &whole, Access::Read).unwrap();
    let bl = rt.bind("left", &left, Access::ReadWrite).unwrap();
    kernel(&mut rt, bl, 5, |i| 100.0 + i as f64);
    rt.launched("k1", &[bl.buffer]);
    let br = rt.bind("right", &right, Access::ReadWrite).unwrap();
    kernel(&mut rt, br, 5, |i| 200.0 + i as f64);
    rt.launched("k2", &[br.buffer]);
    assert_eq!(bw.buffer, bl.buffer);
    assert_eq!(bl.buffer, br.buffer);
    assert_eq!((bl.offset, br.offset), (0, 5));
    assert_eq!(rt.buffer_count(), 1);
    assert_eq!(rt.stats().uploads, 1, "the array went up once");
    // The variable table: both views in one buffer, last written by the second kernel.
    assert_eq!(rt.var("left").unwrap().buffer, Some(bw.buffer));
    assert_eq!(rt.var("right").unwrap().last_writer, Some(2));
    assert_eq!(rt.var("right").unwrap().fresh, Fresh::Device);
    rt.host_access(&whole, false).unwrap();
    assert_eq!(
        a,
        vec![100.0, 101.0, 102.0, 103.0, 104.0, 200.0, 201.0, 202.0, 203.0, 204.0]
    );
    assert_eq!(rt.stats().downloads, 1);
}

#[test]
fn a_view_then_its_whole_array_merge_into_one_row_keeping_the_device_writes() {
    let mut a: Vec<f64> = vec![1.0; 8];
    let mut rt = Runtime::new(Fake::default());
    let half = view(&mut a, 4, 4);
    let bh = rt.bind("h", &half, Access::ReadWrite).unwrap();
    kernel(&mut rt, bh, 4, |_| 7.0);
    rt.launched("k", &[bh.buffer]);
    let whole = view(&mut a, 0, 8);
    let bw = rt.bind("a", &whole, Access::Read).unwrap();
    assert_eq!(rt.buffer_count(), 1);
    assert_eq!(bw.offset, 0);
    rt.end_section().unwrap();
    assert_eq!(a, vec![1.0, 1.0, 1.0, 1.0, 7.0, 7.0, 7.0, 7.0]);
    assert_eq!(rt.buffer_count(), 0);
}

#[test]
fn transfers_happen_only_where_the_freshest_copy_is_on_the_other_side() {
    let mut a: Vec<f64> = vec![2.0; 6];
    let mut b: Vec<f64> = vec![0.0; 6];
    let mut rt = Runtime::new(Fake::default());
    let (va, vb) = (view(&mut a, 0, 6), view(&mut b, 0, 6));
    for step in 0..3 {
        // b = f(a), then a = g(b): a loop of two kernels, data staying on the device.
        let ba = rt.bind("a", &va, Access::Read).unwrap();
        let bb = rt.bind("b", &vb, Access::Overwrite).unwrap();
        let src = rt.buffer(ba.buffer).clone();
        kernel(&mut rt, bb, 6, |i| {
            let x = f64::from_ne_bytes(src.borrow()[i * 8..i * 8 + 8].try_into().unwrap());
            x + 1.0
        });
        rt.launched("f", &[bb.buffer]);
        let bb = rt.bind("b", &vb, Access::Read).unwrap();
        let ba = rt.bind("a", &va, Access::ReadWrite).unwrap();
        let src = rt.buffer(bb.buffer).clone();
        kernel(&mut rt, ba, 6, |i| {
            let x = f64::from_ne_bytes(src.borrow()[i * 8..i * 8 + 8].try_into().unwrap());
            x * 2.0
        });
        rt.launched("g", &[ba.buffer]);
        assert_eq!(
            rt.stats().uploads,
            1,
            "step {step}: a went up once, b never"
        );
        assert_eq!(rt.stats().downloads, 0);
    }
    // The CPU reads b: one download; reading it again moves nothing.
    rt.host_access(&vb, false).unwrap();
    rt.host_access(&vb, false).unwrap();
    assert_eq!(rt.stats().downloads, 1);
    rt.end_section().unwrap();
    assert_eq!(rt.stats().downloads, 2, "a came home at the end");
    // a: 2 -> (3*2=6) -> (7*2=14) -> (15*2=30); b holds the last f: 15.
    assert_eq!(a, vec![30.0; 6]);
    assert_eq!(b, vec![15.0; 6]);
}

#[test]
fn a_section_result_read_by_cpu_control_flow_is_fresh_at_the_read() {
    let mut x: Vec<f64> = vec![0.0; 1];
    let mut rt = Runtime::new(Fake::default());
    let vx = view(&mut x, 0, 1);
    let mut rounds = 0;
    // while (x[0] < 5) { kernel: x[0] += 2 }: the condition is CPU control flow.
    loop {
        rt.host_access(&vx, false).unwrap();
        if x[0] >= 5.0 {
            break;
        }
        let b = rt.bind("x", &vx, Access::ReadWrite).unwrap();
        let buf = rt.buffer(b.buffer).clone();
        let old = f64::from_ne_bytes(buf.borrow()[0..8].try_into().unwrap());
        kernel(&mut rt, b, 1, |_| old + 2.0);
        rt.launched("inc", &[b.buffer]);
        rounds += 1;
    }
    assert_eq!(rounds, 3);
    assert_eq!(x[0], 6.0);
    // A CPU read leaves the device copy valid: x went up once and came home once per
    // kernel.
    assert_eq!(rt.stats().uploads, 1);
    assert_eq!(rt.stats().downloads, 3);
}

#[test]
fn a_cpu_write_makes_the_device_copy_stale() {
    let mut a: Vec<f64> = vec![1.0; 4];
    let mut rt = Runtime::new(Fake::default());
    let va = view(&mut a, 0, 4);
    let b = rt.bind("a", &va, Access::Read).unwrap();
    rt.launched("r", &[]);
    rt.host_access(&va, true).unwrap();
    a[0] = 9.0;
    let b2 = rt.bind("a", &va, Access::Read).unwrap();
    assert_eq!(b.buffer, b2.buffer);
    assert_eq!(rt.stats().uploads, 2, "the CPU's write went up again");
    let got = f64::from_ne_bytes(rt.buffer(b2.buffer).borrow()[0..8].try_into().unwrap());
    assert_eq!(got, 9.0);
}

#[test]
fn copy_on_potential_write_defers_the_copy_until_the_source_is_written() {
    let mut a: Vec<f64> = vec![1.0, 2.0, 3.0, 4.0];
    let mut b: Vec<f64> = vec![0.0; 4];
    let mut rt = Runtime::new(Fake::default());
    let (va, vb) = (view(&mut a, 0, 4), view(&mut b, 0, 4));
    // b = copy(a): nothing moves.
    assert!(rt.lazy_copy(&vb, &va));
    assert_eq!(rt.stats(), Stats::default());
    // A task reading b reads a's buffer.
    let bb = rt.bind("b", &vb, Access::Read).unwrap();
    let ba = rt.bind("a", &va, Access::Read).unwrap();
    assert_eq!(bb, ba);
    assert_eq!(rt.stats().uploads, 1);
    rt.launched("read b", &[]);
    // A task writing a: b's copy is made first, on the device.
    let ba = rt.bind("a", &va, Access::ReadWrite).unwrap();
    assert_eq!(rt.stats().device_copies, 1);
    kernel(&mut rt, ba, 4, |_| -1.0);
    rt.launched("write a", &[ba.buffer]);
    rt.end_section().unwrap();
    assert_eq!(a, vec![-1.0; 4]);
    assert_eq!(b, vec![1.0, 2.0, 3.0, 4.0]);
    assert_eq!(rt.stats().host_copies, 0);
}

#[test]
fn a_copy_only_read_by_the_cpu_is_made_in_host_memory_without_transfers() {
    let mut a: Vec<f64> = vec![5.0, 6.0];
    let mut b: Vec<f64> = vec![0.0; 2];
    let mut rt = Runtime::new(Fake::default());
    let (va, vb) = (view(&mut a, 0, 2), view(&mut b, 0, 2));
    assert!(rt.lazy_copy(&vb, &va));
    rt.host_access(&vb, false).unwrap();
    assert_eq!(b, vec![5.0, 6.0]);
    assert_eq!(rt.stats().host_copies, 1);
    assert_eq!(rt.stats().uploads + rt.stats().downloads, 0);
}

#[test]
fn the_shape_table_knows_a_result_before_its_data_exists() {
    let mut rt = Runtime::new(Fake::default());
    rt.set_shape("c", &[3, 4]);
    assert_eq!(rt.shape("c"), Some(&[3i64, 4][..]));
    rt.end_section().unwrap();
    assert_eq!(rt.shape("c"), None);
}

/// At the end of a section only what code after it may read comes home: a library
/// result bound for overwrite never goes up, a dead temporary never comes down, a
/// deferred copy into a dead array is dropped, one into a kept array is made.
#[test]
fn only_kept_arrays_come_home() {
    let mut rt = Runtime::new(Fake::default());
    let mut a = vec![1.0f64; 4];
    let mut tmp = vec![0.0f64; 4];
    let mut out = vec![0.0f64; 4];
    let mut dead_copy = vec![0.0f64; 4];
    let mut kept_copy = vec![0.0f64; 4];
    let (va, vt, vo) = (
        view(&mut a, 0, 4),
        view(&mut tmp, 0, 4),
        view(&mut out, 0, 4),
    );
    let ba = rt.bind("a", &va, Access::Read).unwrap();
    let bt = rt.bind("tmp", &vt, Access::Overwrite).unwrap();
    kernel(&mut rt, bt, 4, |i| i as f64);
    rt.launched("tmp", &[bt.buffer]);
    let bt = rt.bind("tmp", &vt, Access::Read).unwrap();
    let bo = rt.bind("out", &vo, Access::Overwrite).unwrap();
    kernel(&mut rt, bo, 4, |i| 10.0 * i as f64);
    rt.launched("out", &[bo.buffer]);
    let _ = (ba, bt);
    assert!(rt.lazy_copy(&view(&mut dead_copy, 0, 4), &vo));
    assert!(rt.lazy_copy(&view(&mut kept_copy, 0, 4), &vt));
    assert_eq!(
        rt.stats().uploads,
        1,
        "only `a`: results are bound for overwrite"
    );
    let kept = [vo.clone(), view(&mut kept_copy, 0, 4)];
    rt.end_section_keeping(Some(&kept)).unwrap();
    let s = rt.stats();
    assert_eq!(
        s.device_copies, 1,
        "the copy into the kept array, on the device"
    );
    assert_eq!(s.downloads, 2, "out and the kept copy; not tmp");
    assert_eq!(s.discarded_bytes, 32, "tmp dropped unread");
    assert_eq!(out, vec![0.0, 10.0, 20.0, 30.0]);
    assert_eq!(kept_copy, vec![0.0, 1.0, 2.0, 3.0]);
    assert_eq!(tmp, vec![0.0; 4], "never brought home");
    assert_eq!(dead_copy, vec![0.0; 4], "never made");
    assert_eq!(rt.buffer_count(), 0);
}

/// A fake kernel reading `src`'s element i and writing `f(x)` to `dst`'s element i.
fn map(rt: &mut Runtime<Fake>, src: Bound, dst: Bound, len: usize, f: impl Fn(f64) -> f64) {
    let from = rt.buffer(src.buffer).clone();
    let xs: Vec<f64> = (0..len)
        .map(|i| {
            let at = (src.offset as usize + i) * 8;
            f64::from_ne_bytes(from.borrow()[at..at + 8].try_into().unwrap())
        })
        .collect();
    kernel(rt, dst, len, |i| f(xs[i]));
}

#[test]
fn with_residency_a_second_section_reuses_device_copies_until_the_cpu_writes_them() {
    let mut a: Vec<f64> = vec![1.0, 2.0, 3.0, 4.0];
    let mut b: Vec<f64> = vec![0.0; 4];
    let mut rt = Runtime::new(Fake::default());
    rt.set_resident(true);
    let (va, vb) = (view(&mut a, 0, 4), view(&mut b, 0, 4));
    // Section 1: b = a + 1.
    let ba = rt.bind("a", &va, Access::Read).unwrap();
    let bb = rt.bind("b", &vb, Access::Overwrite).unwrap();
    map(&mut rt, ba, bb, 4, |x| x + 1.0);
    rt.launched("k1", &[bb.buffer]);
    rt.end_section_keeping(Some(&[va.clone(), vb.clone()]))
        .unwrap();
    assert_eq!(b, vec![2.0, 3.0, 4.0, 5.0]);
    assert_eq!((rt.stats().uploads, rt.stats().downloads), (1, 1));
    assert_eq!(rt.buffer_count(), 2, "both rows stay, fresh on both sides");
    // Section 2: b = b * a, reading both where they are: nothing goes up.
    let ba = rt.bind("a", &va, Access::Read).unwrap();
    let bb = rt.bind("b", &vb, Access::ReadWrite).unwrap();
    let from = rt.buffer(ba.buffer).clone();
    kernel(&mut rt, bb, 4, |i| {
        let x = f64::from_ne_bytes(from.borrow()[i * 8..i * 8 + 8].try_into().unwrap());
        x * (x + 1.0)
    });
    rt.launched("k2", &[bb.buffer]);
    rt.end_section_keeping(Some(&[va.clone(), vb.clone()]))
        .unwrap();
    assert_eq!(rt.stats().uploads, 1, "a and b were resident");
    assert_eq!(b, vec![2.0, 6.0, 12.0, 20.0]);
    // The CPU writes a between sections (the planner reports it): the next section
    // uploads a again and reads the new value, never the stale copy.
    rt.host_access(&va, true).unwrap();
    a[0] = 100.0;
    let ba = rt.bind("a", &va, Access::Read).unwrap();
    let bb = rt.bind("b", &vb, Access::Overwrite).unwrap();
    map(&mut rt, ba, bb, 4, |x| -x);
    rt.launched("k3", &[bb.buffer]);
    rt.end_section_keeping(Some(&[va.clone(), vb.clone()]))
        .unwrap();
    assert_eq!(rt.stats().uploads, 2);
    assert_eq!(b, vec![-100.0, -2.0, -3.0, -4.0]);
    // CPU code that may write anything (through a tuple) drops every copy.
    rt.forget_all().unwrap();
    assert_eq!(rt.buffer_count(), 0);
}

#[test]
fn without_residency_every_section_uploads_again() {
    let mut a: Vec<f64> = vec![1.0; 4];
    let mut b: Vec<f64> = vec![0.0; 4];
    let mut rt = Runtime::new(Fake::default());
    let (va, vb) = (view(&mut a, 0, 4), view(&mut b, 0, 4));
    for _ in 0..2 {
        let ba = rt.bind("a", &va, Access::Read).unwrap();
        let bb = rt.bind("b", &vb, Access::Overwrite).unwrap();
        map(&mut rt, ba, bb, 4, |x| x + 1.0);
        rt.launched("k", &[bb.buffer]);
        rt.end_section().unwrap();
    }
    assert_eq!(rt.stats().uploads, 2);
    assert_eq!(rt.buffer_count(), 0);
}

#[test]
fn a_clean_copy_passes_to_the_next_call_and_a_written_one_does_not() {
    let mut a: Vec<f64> = vec![5.0; 4];
    let mut b: Vec<f64> = vec![0.0; 4];
    let (va, vb) = (view(&mut a, 0, 4), view(&mut b, 0, 4));
    let (ra, rb) = (va.byte_range(), vb.byte_range());
    // Call 1 uploads a, writes b.
    let mut rt = Runtime::new(Fake::default());
    rt.set_resident(true);
    let ba = rt.bind("a", &va, Access::Read).unwrap();
    let bb = rt.bind("b", &vb, Access::Overwrite).unwrap();
    map(&mut rt, ba, bb, 4, |x| x * 3.0);
    rt.launched("k", &[bb.buffer]);
    rt.end_section().unwrap();
    assert!(rt.take_clean(rb.0, rb.1).is_none(), "a kernel wrote b");
    let kept = rt.take_clean(ra.0, ra.1).expect("a is clean");
    assert_eq!(b, vec![15.0; 4]);
    // Call 2 adopts a's copy: nothing goes up, and the kernel reads the kept bytes.
    let mut rt = Runtime::new(Fake::default());
    rt.set_resident(true);
    assert!(rt.adopt(ra.0, ra.1, kept));
    let ba = rt.bind("a", &va, Access::Read).unwrap();
    let bb = rt.bind("b", &vb, Access::Overwrite).unwrap();
    map(&mut rt, ba, bb, 4, |x| x + 1.0);
    rt.launched("k", &[bb.buffer]);
    rt.end_section().unwrap();
    assert_eq!(rt.stats().uploads, 0);
    assert_eq!(b, vec![6.0; 4]);
    // A CPU write inside the call makes the copy stale: it is not handed on.
    rt.host_access(&va, true).unwrap();
    assert!(rt.take_clean(ra.0, ra.1).is_none());
}

/// A deferred copy whose making fails part-way (the device runs out of memory for the
/// copy's own buffer) stays deferred: giving the device up then makes it in host
/// memory, so the copy is never lost. The source's device-only bytes (a kernel wrote
/// them) come home first, and the copy holds them as they were before the failed task.
#[test]
fn a_deferred_copy_survives_a_failed_allocation_and_is_made_when_the_device_is_given_up() {
    let mut a: Vec<f64> = vec![1.0, 2.0, 3.0, 4.0];
    let mut b: Vec<f64> = vec![0.0; 4];
    let (va, vb) = (view(&mut a, 0, 4), view(&mut b, 0, 4));
    let mut rt = Runtime::new(Fake {
        // 1: a's row; 2: b's row, made when a task is about to write a.
        fail_alloc: Some(2),
        ..Fake::default()
    });
    let ba = rt.bind("a", &va, Access::ReadWrite).unwrap();
    kernel(&mut rt, ba, 4, |i| 10.0 * (i as f64 + 1.0));
    rt.launched("a = 10 * (i + 1)", &[ba.buffer]);
    // b = copy(a): deferred; then a task writing a must make it first, and fails.
    assert!(rt.lazy_copy(&vb, &va));
    let err = rt.bind("a", &va, Access::ReadWrite).unwrap_err();
    assert!(err.fault && !err.waited, "{err:?}");
    assert_eq!(b, vec![0.0; 4], "nothing copied yet");
    let lost = rt.abandon(true);
    assert!(lost.is_empty(), "{lost:?}");
    assert_eq!(
        a,
        vec![10.0, 20.0, 30.0, 40.0],
        "the kernel's result came home"
    );
    assert_eq!(
        b,
        vec![10.0, 20.0, 30.0, 40.0],
        "the copy was made in host memory"
    );
    assert_eq!(rt.buffer_count(), 0);
    assert!(!rt.device_holds_anything());
}

/// A device lost while it held the only fresh copy of an array: `abandon` names what
/// could not come home (the variable bound to it and the task that wrote it) instead of
/// leaving stale host bytes to be read as the result; a row fresh on both sides is not
/// lost.
#[test]
fn abandoning_a_lost_device_names_what_only_it_held() {
    let mut a: Vec<f64> = vec![1.0; 4];
    let mut y: Vec<f64> = vec![0.0; 4];
    let (va, vy) = (view(&mut a, 0, 4), view(&mut y, 0, 4));
    let mut rt = Runtime::new(Fake::default());
    let ba = rt.bind("a", &va, Access::Read).unwrap();
    let by = rt.bind("y", &vy, Access::Overwrite).unwrap();
    map(&mut rt, ba, by, 4, |x| x + 1.0);
    rt.launched("y = a + 1", &[by.buffer]);
    rt.device().fail_downloads = true;
    let lost = rt.abandon(true);
    assert_eq!(lost.len(), 1, "{lost:?}");
    assert_eq!(lost[0].vars, vec!["y".to_string()]);
    assert_eq!(lost[0].writer.as_deref(), Some("y = a + 1"));
    assert_eq!((lost[0].lo, lost[0].hi), vy.byte_range());
    assert_eq!(y, vec![0.0; 4], "nothing was made up");
    // After a failed wait nothing is downloaded at all.
    let mut rt = Runtime::new(Fake::default());
    let by = rt.bind("y", &vy, Access::Overwrite).unwrap();
    kernel(&mut rt, by, 4, |_| 5.0);
    rt.launched("y = 5", &[by.buffer]);
    let lost = rt.abandon(false);
    assert_eq!(lost.len(), 1);
    assert_eq!(rt.stats().downloads, 0);
    assert_eq!(y, vec![0.0; 4]);
}
