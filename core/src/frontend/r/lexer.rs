//! R tokens: the lexical structure of R source as people write it and as `deparse()`
//! prints it. Newlines are tokens (they end statements); the parser ignores them inside
//! parentheses and brackets, as R does.

use crate::frontend::hir::Line;
use crate::runtime::error::{VrError, VrResult};

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Num(f64),
    Int(i32),
    Imag(f64),
    Str(String),
    Ident(String),
    /// Operators and punctuation, spelled as in the source (`<-`, `%/%`, `[[`, ...).
    Op(&'static str),
    /// A user-defined `%op%` other than the ones R defines for arithmetic.
    Special(String),
    Newline,
    Eof,
}

#[derive(Clone, Debug)]
pub struct Token {
    pub tok: Tok,
    pub line: Line,
}

const OPS: [&str; 38] = [
    "<<-", "->>", "%%", "%/%", "%*%", "%in%", "|>", "<-", "->", "<=", ">=", "==", "!=", "&&", "||", "[[", "::", "+",
    "-", "*", "/", "^", "<", ">", "!", "&", "|", "~", "?", ":", "=", "(", ")", "{", "}", "[", "]",
    // R 4.1's `\(x) ...`, shorthand for `function(x) ...`.
    "\\",
];

pub fn lex(src: &str) -> VrResult<Vec<Token>> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line: Line = 1;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\n' => {
                out.push(Token { tok: Tok::Newline, line });
                line += 1;
                i += 1;
            }
            ' ' | '\t' | '\r' | '\u{c}' => i += 1,
            '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            ';' => {
                out.push(Token { tok: Tok::Newline, line });
                i += 1;
            }
            ',' => {
                out.push(Token { tok: Tok::Op(","), line });
                i += 1;
            }
            '$' | '@' => {
                out.push(Token { tok: Tok::Op(if c == '$' { "$" } else { "@" }), line });
                i += 1;
            }
            '"' | '\'' => {
                let start_line = line;
                let mut s = String::new();
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return Err(VrError::parse(format!("line {start_line}: unterminated string"))),
                        Some(&q) if q == c => break,
                        Some('\\') => {
                            i += 1;
                            if let Some(&e) = chars.get(i) {
                                s.push(match e {
                                    'n' => '\n',
                                    't' => '\t',
                                    other => other,
                                });
                            }
                        }
                        Some(&ch) => {
                            if ch == '\n' {
                                line += 1;
                            }
                            s.push(ch)
                        }
                    }
                    i += 1;
                }
                i += 1;
                out.push(Token { tok: Tok::Str(s), line: start_line });
            }
            '`' => {
                let mut s = String::new();
                i += 1;
                while i < chars.len() && chars[i] != '`' {
                    s.push(chars[i]);
                    i += 1;
                }
                i += 1;
                out.push(Token { tok: Tok::Ident(s), line });
            }
            c if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())) => {
                let (tok, next) = number(&chars, i, line)?;
                out.push(Token { tok, line });
                i = next;
            }
            c if c.is_alphabetic() || c == '.' || c == '_' => {
                let mut s = String::new();
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '.' || chars[i] == '_') {
                    s.push(chars[i]);
                    i += 1;
                }
                out.push(Token { tok: Tok::Ident(s), line });
            }
            '%' => {
                let mut j = i + 1;
                while j < chars.len() && chars[j] != '%' && chars[j] != '\n' {
                    j += 1;
                }
                if chars.get(j) != Some(&'%') {
                    return Err(VrError::parse(format!("line {line}: unterminated %operator%")));
                }
                let op: String = chars[i..=j].iter().collect();
                let tok = match OPS.iter().find(|o| **o == op) {
                    Some(o) => Tok::Op(o),
                    None => Tok::Special(op),
                };
                out.push(Token { tok, line });
                i = j + 1;
            }
            _ => {
                let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
                let Some(op) = OPS.iter().find(|o| !o.starts_with('%') && rest.starts_with(**o)) else {
                    return Err(VrError::parse(format!("line {line}: unexpected character `{c}`")));
                };
                out.push(Token { tok: Tok::Op(op), line });
                i += op.chars().count();
            }
        }
    }
    out.push(Token { tok: Tok::Eof, line });
    Ok(out)
}

/// A numeric literal: decimal or hex, with optional exponent and `L` / `i` suffix.
fn number(chars: &[char], mut i: usize, line: Line) -> VrResult<(Tok, usize)> {
    let start = i;
    let value: f64;
    if chars[i] == '0' && matches!(chars.get(i + 1), Some('x') | Some('X')) {
        i += 2;
        let h = i;
        while i < chars.len() && chars[i].is_ascii_hexdigit() {
            i += 1;
        }
        let digits: String = chars[h..i].iter().collect();
        value = u64::from_str_radix(&digits, 16)
            .map_err(|_| VrError::parse(format!("line {line}: bad hex literal")))? as f64;
    } else {
        while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
            i += 1;
        }
        if matches!(chars.get(i), Some('e') | Some('E')) {
            let save = i;
            i += 1;
            if matches!(chars.get(i), Some('+') | Some('-')) {
                i += 1;
            }
            if chars.get(i).is_some_and(|d| d.is_ascii_digit()) {
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
            } else {
                i = save;
            }
        }
        let text: String = chars[start..i].iter().collect();
        value = text
            .parse::<f64>()
            .map_err(|_| VrError::parse(format!("line {line}: bad number `{text}`")))?;
    }
    match chars.get(i) {
        Some('L') => {
            if value.fract() != 0.0 || value.abs() > i32::MAX as f64 {
                // R itself warns and makes a double; so do we.
                Ok((Tok::Num(value), i + 1))
            } else {
                Ok((Tok::Int(value as i32), i + 1))
            }
        }
        Some('i') => Ok((Tok::Imag(value), i + 1)),
        _ => Ok((Tok::Num(value), i)),
    }
}
