//! `(sum|prod|mean TREE :acc f80)` whose operand is an element-wise tree that cannot
//! fail on an element: the tree is computed element by element inside the
//! accumulation loop of `accumulate.rs`, with no array for its value.
//!
//! Why here and not in the optimizer: R's `sum` accumulates in `long double`, and VRIR
//! has no `f80` scalar, so the `fusion` pass cannot write the accumulation as a VRIR
//! loop; it leaves the reduction with its whole tree (`sum(1 / (k * k))`) and this file
//! fuses it. Without it, each operation of the tree would write an array of its own.
//!
//! The same result and the same errors as the tree computed as written, then folded:
//! the leaves are evaluated before any element, in the order the element-wise operators
//! evaluate their operands (array leaves as views, scalar leaves once); every shape
//! check of the tree runs then, in that order, with the operator's own error; the
//! elements are folded in the storage order of the array the tree would have written
//! (its layout is the operators' `fresh_layout`), and since no operation of the tree
//! can fail on an element (`opt::elementwise::recognise` counts them: integer division,
//! `rem`, `pow` of integers, float-to-integer casts), computing an element later than
//! the unfused code would changes nothing. Trees with such an operation are computed as
//! written.

use super::elementwise::{fresh_layout, Operand};
use super::{ArrayView, CodeGen, FnGen, Val};
use crate::runtime::error::VrResult;
use crate::vrir::ast::{BinOp, Expr, LibFn, UnOp};
use crate::vrir::types::{ArrayType, ScalarType, Type};
use inkwell::values::IntValue;

/// An element-wise tree whose leaves have been evaluated: element `idx` is computed by
/// [`CodeGen::tree_element`].
pub(crate) enum LazyTree<'ctx> {
    Leaf(Operand<'ctx>),
    Binary(BinOp, Box<LazyTree<'ctx>>, Box<LazyTree<'ctx>>),
    Unary(UnOp, Box<LazyTree<'ctx>>),
    Lib(LibFn, Vec<LazyTree<'ctx>>),
    Cast(ScalarType, Box<LazyTree<'ctx>>),
}

/// What an accumulation folds: the elements of an array, or those of a tree computed as
/// they are folded.
pub(crate) enum Elements<'a, 'ctx> {
    Array(&'a ArrayView<'ctx>),
    Tree {
        /// The type of the array the tree would have written.
        ty: ArrayType,
        dims: Vec<IntValue<'ctx>>,
        tree: LazyTree<'ctx>,
    },
}

impl<'ctx> Elements<'_, 'ctx> {
    pub(crate) fn ty(&self) -> ArrayType {
        match self {
            Elements::Array(a) => a.ty,
            Elements::Tree { ty, .. } => *ty,
        }
    }

    pub(crate) fn dims(&self) -> &[IntValue<'ctx>] {
        match self {
            Elements::Array(a) => &a.dims,
            Elements::Tree { dims, .. } => dims,
        }
    }
}

/// A node's element type and, for an array, the extents of the array the unfused
/// operator would have written (what the next operator's shape check compares).
struct Shape<'ctx> {
    elem: ScalarType,
    array: Option<(ArrayType, Vec<IntValue<'ctx>>)>,
}

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    /// Whether `arg` of a whole-array accumulated reduction is computed inside its
    /// accumulation loop: an element-wise tree (its root an operation) with no operation
    /// that can fail on an element, whose library functions take one or two arguments.
    pub(crate) fn folds_tree(&self, g: &FnGen<'ctx, 'm>, arg: &Expr) -> bool {
        fn arities_ok(e: &Expr) -> bool {
            match e {
                Expr::Binary { lhs, rhs, .. } => arities_ok(lhs) && arities_ok(rhs),
                Expr::Unary { arg, .. } | Expr::Cast { arg, .. } => arities_ok(arg),
                Expr::Lib { args, .. } => {
                    (1..=2).contains(&args.len()) && args.iter().all(arities_ok)
                }
                _ => true,
            }
        }
        crate::opt::elementwise::recognise(self.vm, g.f, arg)
            .is_some_and(|t| t.fallible == 0 && t.ops >= 1)
            && arities_ok(arg)
    }

    /// The tree `e` (see [`Self::folds_tree`]) with its leaves evaluated and its shapes
    /// checked, as the element-wise operators would, but no element computed.
    pub(crate) fn tree_elements(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        e: &Expr,
    ) -> VrResult<Elements<'ctx, 'ctx>> {
        let (tree, shape) = self.lazy_node(g, e)?;
        let Some((ty, dims)) = shape.array else {
            return Err(self.type_err(g, "reduction of a scalar tree".into()));
        };
        Ok(Elements::Tree { ty, dims, tree })
    }

    fn lazy_node(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        e: &Expr,
    ) -> VrResult<(LazyTree<'ctx>, Shape<'ctx>)> {
        match e {
            Expr::Binary { op, lhs, rhs } => {
                let (a, sa) = self.lazy_node(g, lhs)?;
                let (b, sb) = self.lazy_node(g, rhs)?;
                if sa.elem != sb.elem {
                    return Err(self.type_err(
                        g,
                        format!("`{}` of {} and {}", op.symbol(), sa.elem, sb.elem),
                    ));
                }
                let array = self.combined(g, &[&sa, &sb])?;
                let elem = if op.is_comparison() || op.is_logical() {
                    ScalarType::Bool
                } else {
                    sa.elem
                };
                let array =
                    array.map(|(t, d)| (ArrayType::new(elem, t.ndims, fresh_layout(t.layout)), d));
                Ok((
                    LazyTree::Binary(*op, Box::new(a), Box::new(b)),
                    Shape { elem, array },
                ))
            }
            Expr::Unary { op, arg } => {
                let (a, s) = self.lazy_node(g, arg)?;
                let array = s
                    .array
                    .map(|(t, d)| (ArrayType::new(t.elem, t.ndims, fresh_layout(t.layout)), d));
                Ok((
                    LazyTree::Unary(*op, Box::new(a)),
                    Shape {
                        elem: s.elem,
                        array,
                    },
                ))
            }
            Expr::Lib { func, args } => {
                let mut kids = Vec::with_capacity(args.len());
                let mut shapes = Vec::with_capacity(args.len());
                for a in args {
                    let (k, s) = self.lazy_node(g, a)?;
                    kids.push(k);
                    shapes.push(s);
                }
                let t = shapes[0].elem;
                if shapes.iter().any(|s| s.elem != t) {
                    return Err(
                        self.type_err(g, format!("`{}` of mixed element types", func.name()))
                    );
                }
                let refs: Vec<&Shape<'ctx>> = shapes.iter().collect();
                let elem = super::complex::lib_result_type(*func, t);
                let array = self
                    .combined(g, &refs)?
                    .map(|(t, d)| (ArrayType::new(elem, t.ndims, fresh_layout(t.layout)), d));
                Ok((LazyTree::Lib(*func, kids), Shape { elem, array }))
            }
            Expr::Cast {
                to: Type::Array(to),
                arg,
            } => {
                let (a, s) = self.lazy_node(g, arg)?;
                match s.array {
                    Some((_, d)) if d.len() == to.ndims as usize => Ok((
                        LazyTree::Cast(to.elem, Box::new(a)),
                        Shape {
                            elem: to.elem,
                            array: Some((*to, d)),
                        },
                    )),
                    _ => Err(self.type_err(g, format!("cast of a tree to {to}"))),
                }
            }
            leaf => {
                let o = self.operand(g, leaf)?;
                let shape = match &o {
                    Operand::Array(a) => Shape {
                        elem: a.ty.elem,
                        array: Some((a.ty, a.dims.clone())),
                    },
                    Operand::Scalar(v) => Shape {
                        elem: v.ty,
                        array: None,
                    },
                };
                Ok((LazyTree::Leaf(o), shape))
            }
        }
    }

    /// The array shape of an operation over `shapes`: the first array operand's, after
    /// the operator's shape check of two array operands (its error, its values).
    fn combined(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        shapes: &[&Shape<'ctx>],
    ) -> VrResult<Option<(ArrayType, Vec<IntValue<'ctx>>)>> {
        let arrays: Vec<&(ArrayType, Vec<IntValue<'ctx>>)> =
            shapes.iter().filter_map(|s| s.array.as_ref()).collect();
        match arrays.as_slice() {
            [] => Err(self.type_err(g, "element-wise operation on scalars in a tree".into())),
            [x] => Ok(Some((*x).clone())),
            [x, y] => {
                let (vx, vy) = (self.shape_view(x), self.shape_view(y));
                self.check_same_shape(g, &vx, &vy)?;
                Ok(Some((*x).clone()))
            }
            _ => Err(self.type_err(g, "element-wise operation of three arrays".into())),
        }
    }

    /// A view with `shape`'s extents for `check_same_shape`, which reads only those (its
    /// pointers are never loaded through).
    fn shape_view(&self, shape: &(ArrayType, Vec<IntValue<'ctx>>)) -> ArrayView<'ctx> {
        let null = self
            .cx
            .ptr_type(inkwell::AddressSpace::default())
            .const_null();
        ArrayView {
            ty: shape.0,
            desc: null,
            data: null,
            dims: shape.1.clone(),
            strides: Vec::new(),
        }
    }

    /// Element `idx` (a multi-index of the tree's extents) of `t`.
    pub(crate) fn tree_element(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        t: &LazyTree<'ctx>,
        idx: &[IntValue<'ctx>],
    ) -> VrResult<Val<'ctx>> {
        match t {
            LazyTree::Leaf(o) => self.load_operand(g, o, idx),
            LazyTree::Binary(op, a, b) => {
                let x = self.tree_element(g, a, idx)?;
                let y = self.tree_element(g, b, idx)?;
                match op {
                    // As the element-wise operator: `and`/`or` of bool arrays do not
                    // short-circuit.
                    BinOp::And | BinOp::Or if x.ty == ScalarType::Bool => {
                        let v = if *op == BinOp::And {
                            self.builder.build_and(x.int(), y.int(), "")?
                        } else {
                            self.builder.build_or(x.int(), y.int(), "")?
                        };
                        Ok(Val {
                            v: v.into(),
                            ty: ScalarType::Bool,
                        })
                    }
                    _ => self.binary(g, *op, x, y),
                }
            }
            LazyTree::Unary(op, a) => {
                let x = self.tree_element(g, a, idx)?;
                self.unary(g, *op, x)
            }
            LazyTree::Lib(f, args) => {
                let mut xs = Vec::with_capacity(args.len());
                for a in args {
                    xs.push(self.tree_element(g, a, idx)?);
                }
                self.lib_apply(g, *f, xs[0], xs.get(1).copied())
            }
            LazyTree::Cast(to, a) => {
                let x = self.tree_element(g, a, idx)?;
                self.cast(g, x, *to)
            }
        }
    }
}
