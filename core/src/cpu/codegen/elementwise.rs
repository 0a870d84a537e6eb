//! Whole-array loops: copies (`copy`, slices without `:view`) into fresh arrays from the
//! arena. Elements are visited in logical order (first index slowest), as the
//! interpreter visits them, so the first failing element is the same.

use super::{ArrayView, CodeGen, FnGen};
use crate::runtime::error::VrResult;
use crate::vrir::ast::Expr;
use crate::vrir::types::{ArrayType, Layout};
use inkwell::values::{IntValue, PointerValue};

/// The layout of a freshly computed array derived from an operand of layout `l` (the
/// interpreter's rule: `strided` becomes `row`).
pub(crate) fn fresh_layout(l: Layout) -> Layout {
    if l == Layout::Strided {
        Layout::Row
    } else {
        l
    }
}

/// Body of an n-dimensional loop: receives the multi-index.
type NdBody<'a, 'ctx, 'm> =
    dyn FnMut(&mut CodeGen<'ctx, 'm>, &mut FnGen<'ctx, 'm>, &[IntValue<'ctx>]) -> VrResult<()> + 'a;

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    /// Emit loops over every multi-index of `dims` in logical order.
    pub(crate) fn nd_loop(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        dims: &[IntValue<'ctx>],
        body: &mut NdBody<'_, 'ctx, 'm>,
    ) -> VrResult<()> {
        let mut idx = Vec::with_capacity(dims.len());
        self.nd_level(g, dims, &mut idx, body)
    }

    fn nd_level(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        dims: &[IntValue<'ctx>],
        idx: &mut Vec<IntValue<'ctx>>,
        body: &mut NdBody<'_, 'ctx, 'm>,
    ) -> VrResult<()> {
        if idx.len() == dims.len() {
            return body(self, g, idx);
        }
        let extent = dims[idx.len()];
        self.counted_loop(g, extent, |s, g, i| {
            idx.push(i);
            let r = s.nd_level(g, dims, idx, body);
            idx.pop();
            r
        })
    }

    /// Address of the element at multi-index `idx` (in range) of `a`.
    pub(crate) fn elem_addr(
        &self,
        g: &FnGen<'ctx, 'm>,
        a: &ArrayView<'ctx>,
        idx: &[IntValue<'ctx>],
    ) -> VrResult<PointerValue<'ctx>> {
        let mut off = self.i64c(0);
        for (i, s) in idx.iter().zip(&a.strides) {
            let t = self.builder.build_int_mul(*i, *s, "")?;
            off = self.builder.build_int_add(off, t, "")?;
        }
        let mt = self.mem_type(a.ty.elem, &g.f.name)?;
        Ok(unsafe { self.builder.build_gep(mt, a.data, &[off], "")? })
    }

    /// A fresh array of layout `layout` holding the elements of `src`.
    pub(crate) fn copy_of(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        src: &ArrayView<'ctx>,
        layout: Layout,
    ) -> VrResult<ArrayView<'ctx>> {
        let ty = ArrayType::new(src.ty.elem, src.ty.ndims, layout);
        let out = self.alloc_with_dims(g, ty, &src.dims)?;
        let mt = self.mem_type(src.ty.elem, &g.f.name)?;
        let (s, o) = (src.clone(), out.clone());
        self.nd_loop(g, &src.dims, &mut |cg, g, idx| {
            let v = cg.builder.build_load(mt, cg.elem_addr(g, &s, idx)?, "")?;
            cg.builder.build_store(cg.elem_addr(g, &o, idx)?, v)?;
            Ok(())
        })?;
        Ok(out)
    }

    /// The declared array type of a variable, when `e` is one.
    pub(crate) fn declared_array_type(&self, g: &FnGen<'ctx, 'm>, e: &Expr) -> Option<ArrayType> {
        let Expr::Var { name } = e else { return None };
        g.f.params
            .iter()
            .map(|p| (&p.name, &p.ty))
            .chain(g.f.locals.iter().map(|l| (&l.name, &l.ty)))
            .find(|(n, _)| *n == name)
            .and_then(|(_, t)| t.as_array())
    }
}
