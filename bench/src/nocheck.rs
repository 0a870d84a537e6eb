//! The "checks off" variant of a module: every index access with `check = false`.
//!
//! The walk runs over the module's JSON form, where every index access (read or write
//! target) carries its `IndexFlags` under a `flags` key; setting `check: false` in each
//! such object reaches every access without mirroring each `Expr` variant here, so new
//! expression kinds cannot be missed.

use serde_json::Value as Json;
use velociraptor::runtime::error::VrResult;
use velociraptor::vrir::ast::Module;
use velociraptor::vrir::json::{from_json, to_json};

/// A copy of `m` with bounds checks off on every index access.
pub fn without_checks(m: &Module) -> VrResult<Module> {
    let mut tree: Json = serde_json::from_str(&to_json(m)).expect("our own JSON form parses");
    clear_checks(&mut tree);
    from_json(&tree.to_string())
}

fn clear_checks(node: &mut Json) {
    match node {
        Json::Object(map) => {
            for (key, child) in map.iter_mut() {
                if key == "flags" {
                    if let Json::Object(flags) = child {
                        flags.insert("check".into(), Json::Bool(false));
                    }
                } else {
                    clear_checks(child);
                }
            }
        }
        Json::Array(items) => items.iter_mut().for_each(clear_checks),
        _ => {}
    }
}
