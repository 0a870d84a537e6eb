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

#[cfg(test)]
mod tests {
    use super::*;
    use velociraptor::vrir::text::{parse_module, print_module};

    #[test]
    fn every_read_and_write_loses_its_check() {
        let src = "(module m :index-base 0
          (function f ((a f64[2,row]) (b f64[1,row]) (c i64[1,row])) ()
            (locals (i i64))
            (for (i) (range 0 1)
              (block (set (index b i) (index a i (index c 0 :nocheck)))))))";
        let m = parse_module(src).unwrap();
        let off = without_checks(&m).unwrap();
        velociraptor::vrir::verify::verify_module(&off).unwrap();
        let text = print_module(&off);
        assert_eq!(text.matches(":nocheck").count(), 3, "{text}");
        assert_eq!(text.matches("(index").count(), 3, "{text}");
    }
}
