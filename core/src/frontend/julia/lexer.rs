//! Julia tokens. Julia is whitespace-sensitive in a few places the parser must see
//! (`[a -1]` is two elements, `2x` is `2 * x`, `a'` is an adjoint where `'a'` is a
//! character, a newline ends a statement), so every token records whether space came
//! before it. Comments (`#`, nested `#= =#`) are dropped, except that a block comment
//! `#= FILE:LINE =#` (how Julia prints the line of each statement of an expression,
//! `string(:(function ... end))`) renumbers the lines that follow: the Velociraptor.jl
//! macro hands over printed source, and errors must name the lines of the user's file.

use crate::frontend::hir::Line;
use crate::runtime::error::{VrError, VrResult};

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// An integer literal (decimal, or `0x`/`0b`/`0o`: then `unsigned` is set, as Julia
    /// makes those UInt values), as written; the parser checks the range.
    Int {
        digits: String,
        unsigned: bool,
    },
    Float(f64),
    /// A `Float32` literal (`1f0`, `2.5f-3`).
    Float32(f64),
    Str(String),
    Char(char),
    Ident(String),
    /// `@name` (also `@.`), without the `@`.
    Macro(String),
    /// Operators and punctuation as spelled (`+`, `.+=`, `÷`, `(`, ...).
    Op(String),
    /// End of a line (also `;` is kept as an `Op`).
    Newline,
    Eof,
}

#[derive(Clone, Debug)]
pub struct Token {
    pub tok: Tok,
    pub line: Line,
    /// Whitespace (or a comment) came right before this token.
    pub space_before: bool,
    /// The column (1-based, in characters) where the token starts.
    pub col: u32,
}

/// Operators, longest first within each family so that the first match is the longest.
const OPS: &[&str] = &[
    ".>>>=", ">>>=", ".>>>", ".<<=", ".>>=", "...", ">>>", "<<=", ">>=", "===", "!==", ".+=", ".-=", ".*=", "./=", ".^=", ".÷=", ".%=", ".&=", ".|=", ".⊻=",
    ".==", ".!=", ".<=", ".>=", ".<<", ".>>", ".&&", ".||", ".≤", ".≥", ".≠", "==", "!=", "<=", ">=", "&&", "||", "+=", "-=", "*=", "/=", "^=", "÷=", "%=",
    "|=", "&=", "⊻=", "->", "=>", "::", "<:", ">:", "<<", ">>", "|>", "<|", ".+", ".-", ".*", "./", ".^", ".<", ".>", ".=", ".&", ".|", ".÷", ".%", ".!", ".~",
    ".⊻", "+", "-", "*", "/", "\\", "^", "%", "÷", "&", "|", "⊻", "~", "!", "<", ">", "=", ":", "?", ".", ",", ";", "(", ")", "[", "]", "{", "}", "$", "≤",
    "≥", "≠", "∈", "∉", "'", "√",
];

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic() || (!c.is_ascii() && is_unicode_ident(c))
}

fn is_ident_char(c: char) -> bool {
    is_ident_start(c) || c.is_numeric() || c == '!' || c == '′'
}

/// Unicode characters Julia allows in names that `is_alphabetic` misses (subscripts,
/// primes, a few math letters); operators such as `÷ ≤ ∈ √` are not among them.
fn is_unicode_ident(c: char) -> bool {
    matches!(c, '₀'..='₉' | '⁰'..='⁹' | 'ₐ'..='ₜ' | '′' | '″' | '∇' | '∂' | 'ℯ' | 'ℏ')
}

pub fn lex(src: &str) -> VrResult<Vec<Token>> {
    let chars: Vec<char> = src.chars().collect();
    let mut out: Vec<Token> = Vec::new();
    let mut i = 0;
    let mut line: Line = 1;
    let mut line_start = 0usize;
    let mut space = true;
    // The line a `#= FILE:LINE =#` comment gives the next token (newlines before it do
    // not count: Julia prints the comment on a line of its own).
    let mut directive: Option<Line> = None;
    let err = |line: Line, m: &str| VrError::parse(format!("line {line}: {m}"));
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\n' => {
                out.push(Token { tok: Tok::Newline, line, space_before: space, col: (i - line_start + 1) as u32 });
                if directive.is_none() {
                    line += 1;
                }
                i += 1;
                line_start = i;
                space = true;
                continue;
            }
            ' ' | '\t' | '\r' | '\u{c}' | '\u{a0}' => {
                i += 1;
                space = true;
                continue;
            }
            '#' if chars.get(i + 1) == Some(&'=') => {
                // Nested block comment; `#= FILE:LINE =#` sets the line of what follows.
                let start = i + 2;
                let mut depth = 1;
                i += 2;
                while i < chars.len() && depth > 0 {
                    if chars[i] == '#' && chars.get(i + 1) == Some(&'=') {
                        depth += 1;
                        i += 2;
                    } else if chars[i] == '=' && chars.get(i + 1) == Some(&'#') {
                        depth -= 1;
                        i += 2;
                    } else {
                        if chars[i] == '\n' {
                            line += 1;
                        }
                        i += 1;
                    }
                }
                if depth > 0 {
                    return Err(err(line, "unterminated `#=` comment"));
                }
                let body: String = chars[start..i - 2].iter().collect();
                if let Some(n) = line_directive(&body) {
                    directive = Some(n);
                }
                space = true;
                continue;
            }
            '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                space = true;
                continue;
            }
            _ => {}
        }
        if let Some(n) = directive.take() {
            line = n;
        }
        let tline = line;
        let col = (i - line_start + 1) as u32;
        let prev_closes = out.last().is_some_and(|t| {
            !space && matches!(&t.tok, Tok::Ident(_) | Tok::Int { .. } | Tok::Float(_) | Tok::Float32(_))
                || matches!(&t.tok, Tok::Op(o) if !space && (o == ")" || o == "]" || o == "}" || o == "'"))
        });
        let tok = if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())) {
            let (t, n) = number(&chars[i..]).map_err(|m| err(line, &m))?;
            i += n;
            t
        } else if c == '"' {
            let triple = chars.get(i + 1) == Some(&'"') && chars.get(i + 2) == Some(&'"');
            let (s, n, lines) = string(&chars[i..], triple).ok_or_else(|| err(line, "unterminated string"))?;
            i += n;
            line += lines;
            Tok::Str(s)
        } else if c == '\'' && !prev_closes {
            // A character literal ('a', '\n'); after a value it is the adjoint operator.
            let (ch, n) = char_literal(&chars[i..]).ok_or_else(|| err(line, "bad character literal"))?;
            i += n;
            Tok::Char(ch)
        } else if c == '@' {
            i += 1;
            if chars.get(i) == Some(&'.') {
                i += 1;
                Tok::Macro(".".into())
            } else {
                let s = i;
                while i < chars.len() && is_ident_char(chars[i]) {
                    i += 1;
                }
                if s == i {
                    return Err(err(line, "`@` without a macro name"));
                }
                Tok::Macro(chars[s..i].iter().collect())
            }
        } else if is_ident_start(c) {
            let s = i;
            while i < chars.len() && is_ident_char(chars[i]) {
                // `a!=b` is `a != b`: `!` ends a name before `=` (but not `==`? Julia: `a!==b` too).
                if chars[i] == '!' && chars.get(i + 1) == Some(&'=') {
                    break;
                }
                i += 1;
            }
            Tok::Ident(chars[s..i].iter().collect())
        } else {
            let rest: String = chars[i..chars.len().min(i + 5)].iter().collect();
            let Some(op) = OPS.iter().find(|o| rest.starts_with(*o)) else {
                return Err(err(line, &format!("unexpected character `{c}`")));
            };
            i += op.chars().count();
            Tok::Op((*op).to_string())
        };
        out.push(Token { tok, line: tline, space_before: space, col });
        space = false;
    }
    out.push(Token { tok: Tok::Eof, line, space_before: true, col: 1 });
    Ok(out)
}

/// `FILE:LINE` (or `= FILE:LINE =`, as Julia prints `#= FILE:LINE =#`): the line.
fn line_directive(body: &str) -> Option<Line> {
    let body = body.trim();
    let (_, n) = body.rsplit_once(':')?;
    let n: Line = n.trim().parse().ok()?;
    (n > 0).then_some(n)
}

/// A number at the start of `c`: the token and the characters it takes.
fn number(c: &[char]) -> Result<(Tok, usize), String> {
    let mut i = 0;
    if c[0] == '0' && matches!(c.get(1), Some('x' | 'b' | 'o')) {
        i = 2;
        while i < c.len() && (c[i].is_ascii_hexdigit() || c[i] == '_') {
            i += 1;
        }
        let digits: String = c[..i].iter().filter(|d| **d != '_').collect();
        return Ok((Tok::Int { digits, unsigned: true }, i));
    }
    let digits_from = |mut i: usize| {
        while i < c.len() && (c[i].is_ascii_digit() || (c[i] == '_' && c.get(i + 1).is_some_and(|d| d.is_ascii_digit()))) {
            i += 1;
        }
        i
    };
    i = digits_from(i);
    let mut float = false;
    if c.get(i) == Some(&'.') && c.get(i + 1) != Some(&'.') {
        // `1.5`, `1.`, `1.e3`; but `1.+x` is `1 .+ x` and `x.1` is never reached here.
        let next = c.get(i + 1).copied();
        let is_op = next.is_some_and(|n| "+-*/^<>=!&|%÷~⊻≤≥≠'".contains(n));
        if !is_op {
            float = true;
            i = digits_from(i + 1);
        }
    }
    let mut f32 = false;
    if matches!(c.get(i), Some('e' | 'E' | 'f')) {
        let sign = usize::from(matches!(c.get(i + 1), Some('+' | '-')));
        if c.get(i + 1 + sign).is_some_and(|d| d.is_ascii_digit()) {
            f32 = c[i] == 'f';
            float = true;
            i = digits_from(i + 1 + sign);
        }
    }
    let text: String = c[..i].iter().filter(|d| **d != '_').collect();
    if !float {
        return Ok((Tok::Int { digits: text, unsigned: false }, i));
    }
    let v: f64 = text.replace('f', "e").parse().map_err(|_| format!("bad number `{text}`"))?;
    Ok((if f32 { Tok::Float32(v) } else { Tok::Float(v) }, i))
}

/// A string literal at the start of `c` (`"..."` or `"""..."""`): its text (escapes
/// decoded, `$` interpolation kept as written), the characters taken and the newlines
/// inside.
fn string(c: &[char], triple: bool) -> Option<(String, usize, Line)> {
    let mut i = if triple { 3 } else { 1 };
    let mut s = String::new();
    let mut lines = 0;
    loop {
        let ch = *c.get(i)?;
        if ch == '"' && (!triple || (c.get(i + 1) == Some(&'"') && c.get(i + 2) == Some(&'"'))) {
            return Some((s, i + if triple { 3 } else { 1 }, lines));
        }
        if ch == '\n' {
            lines += 1;
        }
        if ch == '\\' {
            let e = *c.get(i + 1)?;
            s.push(match e {
                'n' => '\n',
                't' => '\t',
                '\\' => '\\',
                '"' => '"',
                '$' => '$',
                other => other,
            });
            i += 2;
            continue;
        }
        s.push(ch);
        i += 1;
    }
}

fn char_literal(c: &[char]) -> Option<(char, usize)> {
    match (c.get(1)?, c.get(2)?) {
        ('\\', e) if c.get(3) == Some(&'\'') => Some((
            match e {
                'n' => '\n',
                't' => '\t',
                '0' => '\0',
                other => *other,
            },
            4,
        )),
        (ch, '\'') => Some((*ch, 3)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn numbers_names_and_operators() {
        let t = toks("x2! = 1_000 .+ 2.5e-1 ÷ 0x1f");
        assert_eq!(t[0], Tok::Ident("x2!".into()));
        assert_eq!(t[2], Tok::Int { digits: "1000".into(), unsigned: false });
        assert_eq!(t[3], Tok::Op(".+".into()));
        assert_eq!(t[4], Tok::Float(0.25));
        assert_eq!(t[5], Tok::Op("÷".into()));
        assert_eq!(t[6], Tok::Int { digits: "0x1f".into(), unsigned: true });
        assert_eq!(toks("a!=b")[1], Tok::Op("!=".into()));
        assert_eq!(toks("1.+x")[1], Tok::Op(".+".into()));
        assert_eq!(toks("1f0")[0], Tok::Float32(1.0));
    }

    #[test]
    fn adjoint_and_characters() {
        assert_eq!(toks("a'")[1], Tok::Op("'".into()));
        assert_eq!(toks("f('a')")[2], Tok::Char('a'));
    }

    #[test]
    fn line_comments_renumber() {
        let t = lex("#= none:12 =#\nx #= c =# = 1\n#= /a/b.jl:40 =# y").unwrap();
        let y = t.iter().find(|t| t.tok == Tok::Ident("y".into())).unwrap();
        assert_eq!(y.line, 40);
        let x = t.iter().find(|t| t.tok == Tok::Ident("x".into())).unwrap();
        assert_eq!(x.line, 12);
    }
}
