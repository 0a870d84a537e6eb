//! Interrupt polls in generated loops (the run-time side is `cpu::interrupt`).
//!
//! Where: at the head of every `while` (a `while` is how a program runs "until done",
//! and the loop a user most often needs to stop), and at the back edge of every `for`
//! level whose body holds another loop. Not in innermost `for` loops: a poll there is a
//! possible early exit, which keeps LLVM from vectorizing the loop, and one pass of an
//! innermost loop is short anyway; the enclosing loop polls between passes. A poll is a
//! load of the source pointer, a volatile load of the flag and a branch that is never
//! taken until an interrupt: a few cycles per outer iteration.

use super::{CodeGen, FnGen};
use crate::cpu::abi::ErrorCode;
use crate::cpu::interrupt::SOURCE_SYMBOL;
use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::vrir::ast::{Block, Stmt, StmtKind};
use inkwell::module::Linkage;
use inkwell::values::BasicValue;
use inkwell::IntPredicate;

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    /// Declare the external pointer generated code reads the flag through.
    pub(super) fn declare_interrupt_source(&self) {
        let g = self.module.add_global(self.ptr_type(), None, SOURCE_SYMBOL);
        g.set_linkage(Linkage::External);
    }

    /// Stop the call with `ErrorCode::Interrupted` when the host's flag is set.
    pub(super) fn poll_interrupt(&mut self, g: &mut FnGen<'ctx, 'm>) -> VrResult<()> {
        let src = self
            .module
            .get_global(SOURCE_SYMBOL)
            .expect("declared with the run-time helpers");
        let flag_ptr = self
            .builder
            .build_load(self.ptr_type(), src.as_pointer_value(), "interrupt.src")?
            .into_pointer_value();
        let flag = self.builder.build_load(self.cx.i32_type(), flag_ptr, "interrupt.flag")?;
        flag.as_instruction_value()
            .expect("a load is an instruction")
            .set_volatile(true)
            .map_err(|e| VrError::new(ErrorKind::Internal, format!("cpu backend: volatile load: {e}")))?;
        let clear = self.builder.build_int_compare(
            IntPredicate::EQ,
            flag.into_int_value(),
            self.cx.i32_type().const_zero(),
            "interrupt.clear",
        )?;
        self.check(g, clear, ErrorCode::Interrupted, None, None)?;
        Ok(())
    }
}

/// Whether a `for` body holds a loop (so the `for` polls at its back edge).
pub(super) fn holds_loop(body: &Block) -> bool {
    body.stmts.iter().any(stmt_holds_loop)
}

fn stmt_holds_loop(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::For { .. } | StmtKind::While { .. } | StmtKind::Parfor { .. } => true,
        StmtKind::If { then, els, .. } => holds_loop(then) || els.as_ref().is_some_and(holds_loop),
        StmtKind::Block(b) => holds_loop(b),
        _ => false,
    }
}
