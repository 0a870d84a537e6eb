//! MATLAB/Octave tokens. Three things make MATLAB's lexical structure context dependent,
//! and the lexer settles them here so that the parser never looks at characters:
//!
//! - `'` is a transpose right after a value (a name, a number, `)`, `]`, `}`, `'`,
//!   `.'`, `end`) with no space between, and starts a string anywhere else (inside `[]`
//!   and `{}`, `a '` with a space starts a string, as MATLAB reads `[a 'x']`);
//! - whitespace separates elements inside `[]` and `{}`: every token records whether
//!   space preceded it (`space_before`), and the parser decides (`[1 -2]` is two
//!   elements, `[1 - 2]` one);
//! - newlines end statements except after `...` (a continuation, the rest of the line
//!   is a comment) and inside `()`; inside `[]` they separate rows.
//!
//! Comments: `%` and `#` (Octave) to the end of the line, and block comments `%{ ... %}`
//! (also `#{ ... #}`) whose markers stand alone on their lines.

use crate::frontend::hir::Line;
use crate::runtime::error::{VrError, VrResult};

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Num(f64),
    /// A purely imaginary literal (`2i`, `1.5j`): its imaginary part.
    Imag(f64),
    Str(String),
    Ident(String),
    /// Operators and punctuation, spelled as MATLAB spells them (`.*`, `~=`, `'`, ...;
    /// Octave's `!` and `!=` are read as `~` and `~=`).
    Op(&'static str),
    /// `,` `;` and newlines: statement separators, and element/row separators in `[]`.
    Comma,
    Semi,
    Newline,
    Eof,
}

#[derive(Clone, Debug)]
pub struct Token {
    pub tok: Tok,
    pub line: Line,
    /// Whitespace (or a continuation) stood between this token and the one before.
    pub space_before: bool,
}

/// Longest first, so that `.^` is read before `.` and `==` before `=`.
const OPS: [&str; 32] = [
    "...", "+=", "-=", "*=", "/=", "^=", "++", "--", ".*", "./", ".\\", ".^", ".'", "==", "~=", "!=", "<=", ">=",
    "&&", "||", "+", "-", "*", "/", "\\", "^", "<", ">", "&", "|", "~", "!",
];

pub fn lex(src: &str) -> VrResult<Vec<Token>> {
    let chars: Vec<char> = src.chars().collect();
    let mut out: Vec<Token> = Vec::new();
    let mut i = 0;
    let mut line: Line = 1;
    // What encloses the current position: `(` or `[`/`{`.
    let mut nesting: Vec<char> = Vec::new();
    let mut space = false;
    let at_line_start = |chars: &[char], i: usize| -> bool {
        let mut j = i;
        while j > 0 && matches!(chars[j - 1], ' ' | '\t') {
            j -= 1;
        }
        j == 0 || chars[j - 1] == '\n'
    };
    let rest_blank = |chars: &[char], mut j: usize| -> bool {
        while j < chars.len() && matches!(chars[j], ' ' | '\t' | '\r') {
            j += 1;
        }
        j >= chars.len() || chars[j] == '\n'
    };
    while i < chars.len() {
        let c = chars[i];
        let push = |out: &mut Vec<Token>, tok: Tok, space: &mut bool| {
            out.push(Token { tok, line, space_before: *space });
            *space = false;
        };
        match c {
            '\n' => {
                if nesting.last() != Some(&'(') {
                    push(&mut out, Tok::Newline, &mut space);
                }
                space = true;
                line += 1;
                i += 1;
            }
            ' ' | '\t' | '\r' | '\u{c}' => {
                space = true;
                i += 1;
            }
            '%' | '#' => {
                // A block comment: `%{` alone on its line, to a matching `%}` alone on its.
                if chars.get(i + 1) == Some(&'{') && at_line_start(&chars, i) && rest_blank(&chars, i + 2) {
                    let mut depth = 0;
                    loop {
                        // At the start of a line (after indentation).
                        let mut j = i;
                        while j < chars.len() && matches!(chars[j], ' ' | '\t') {
                            j += 1;
                        }
                        if j + 1 < chars.len() && matches!(chars[j], '%' | '#') && rest_blank(&chars, j + 2) {
                            if chars[j + 1] == '{' {
                                depth += 1;
                            } else if chars[j + 1] == '}' {
                                depth -= 1;
                            }
                        }
                        while i < chars.len() && chars[i] != '\n' {
                            i += 1;
                        }
                        if depth == 0 || i >= chars.len() {
                            break;
                        }
                        i += 1;
                        line += 1;
                    }
                    if depth != 0 {
                        return Err(VrError::parse(format!("line {line}: unterminated block comment")));
                    }
                    continue;
                }
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '.' if chars.get(i + 1) == Some(&'.') && chars.get(i + 2) == Some(&'.') => {
                // Continuation: the rest of the line is a comment, the newline is space.
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                i += 1;
                line += 1;
                space = true;
            }
            ',' => {
                push(&mut out, Tok::Comma, &mut space);
                i += 1;
            }
            ';' => {
                push(&mut out, Tok::Semi, &mut space);
                i += 1;
            }
            '(' | '[' | '{' => {
                nesting.push(if c == '(' { '(' } else { '[' });
                push(&mut out, Tok::Op(match c {
                    '(' => "(",
                    '[' => "[",
                    _ => "{",
                }), &mut space);
                i += 1;
            }
            ')' | ']' | '}' => {
                nesting.pop();
                push(&mut out, Tok::Op(match c {
                    ')' => ")",
                    ']' => "]",
                    _ => "}",
                }), &mut space);
                i += 1;
            }
            '\'' if transposes(out.last(), space, nesting.last() == Some(&'[')) => {
                push(&mut out, Tok::Op("'"), &mut space);
                i += 1;
            }
            '\'' | '"' => {
                let start_line = line;
                let mut s = String::new();
                i += 1;
                loop {
                    match chars.get(i) {
                        None | Some('\n') => return Err(VrError::parse(format!("line {start_line}: unterminated string"))),
                        Some(&q) if q == c => {
                            // A doubled quote is the quote itself.
                            if chars.get(i + 1) == Some(&c) {
                                s.push(c);
                                i += 2;
                                continue;
                            }
                            break;
                        }
                        Some('\\') if c == '"' => {
                            i += 1;
                            match chars.get(i) {
                                Some('n') => s.push('\n'),
                                Some('t') => s.push('\t'),
                                Some(&e) => s.push(e),
                                None => {}
                            }
                        }
                        Some(&ch) => s.push(ch),
                    }
                    i += 1;
                }
                i += 1;
                push(&mut out, Tok::Str(s), &mut space);
            }
            c if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())) => {
                let (tok, next) = number(&chars, i, line)?;
                push(&mut out, tok, &mut space);
                i = next;
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let mut s = String::new();
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                    s.push(chars[i]);
                    i += 1;
                }
                push(&mut out, Tok::Ident(s), &mut space);
            }
            ':' => {
                push(&mut out, Tok::Op(":"), &mut space);
                i += 1;
            }
            '=' => {
                let op = if chars.get(i + 1) == Some(&'=') { "==" } else { "=" };
                push(&mut out, Tok::Op(op), &mut space);
                i += op.len();
            }
            '@' => {
                push(&mut out, Tok::Op("@"), &mut space);
                i += 1;
            }
            '.' => {
                let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
                match OPS.iter().find(|o| o.starts_with('.') && **o != "..." && rest.starts_with(**o)) {
                    Some(op) => {
                        push(&mut out, Tok::Op(op), &mut space);
                        i += op.len();
                    }
                    None => {
                        // A field access (`s.f`), which no compiled code has.
                        push(&mut out, Tok::Op("."), &mut space);
                        i += 1;
                    }
                }
            }
            _ => {
                let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
                let Some(op) = OPS.iter().find(|o| rest.starts_with(**o) && !o.starts_with('.')) else {
                    return Err(VrError::parse(format!("line {line}: unexpected character `{c}`")));
                };
                let spelled: &'static str = match *op {
                    "!" => "~",
                    "!=" => "~=",
                    o => o,
                };
                push(&mut out, Tok::Op(spelled), &mut space);
                i += op.len();
            }
        }
    }
    out.push(Token { tok: Tok::Eof, line, space_before: space });
    Ok(out)
}

/// Is a `'` after `prev` a transpose? After a value with no space between; with a space
/// only outside `[]`/`{}` (inside them the space separates elements, so `'` starts a
/// string).
fn transposes(prev: Option<&Token>, space: bool, in_brackets: bool) -> bool {
    let Some(p) = prev else { return false };
    let after_value = match &p.tok {
        Tok::Num(_) | Tok::Imag(_) | Tok::Ident(_) => true,
        Tok::Op(o) => matches!(*o, ")" | "]" | "}" | "'" | ".'"),
        _ => false,
    };
    after_value && !(space && in_brackets)
}

/// A numeric literal: decimal (`1`, `1.5`, `.5`, `1e-3`) or hex (`0x1F`), with an
/// optional imaginary suffix `i`/`j`/`I`/`J`. `1.*x` is `1 .* x`: a `.` followed by an
/// operator character is not a decimal point.
fn number(chars: &[char], mut i: usize, line: Line) -> VrResult<(Tok, usize)> {
    let start = i;
    let value: f64;
    if chars[i] == '0' && matches!(chars.get(i + 1), Some('x') | Some('X')) && chars.get(i + 2).is_some_and(|c| c.is_ascii_hexdigit()) {
        i += 2;
        let h = i;
        while i < chars.len() && chars[i].is_ascii_hexdigit() {
            i += 1;
        }
        let digits: String = chars[h..i].iter().collect();
        value = u64::from_str_radix(&digits, 16).map_err(|_| VrError::parse(format!("line {line}: bad hex literal")))? as f64;
    } else {
        let mut seen_dot = false;
        while i < chars.len() {
            if chars[i].is_ascii_digit() {
                i += 1;
            } else if chars[i] == '.' && !seen_dot && !matches!(chars.get(i + 1), Some('*' | '/' | '\\' | '^' | '\'')) && (chars.get(i + 1) != Some(&'.') || chars.get(i + 2) != Some(&'.')) {
                seen_dot = true;
                i += 1;
            } else {
                break;
            }
        }
        if matches!(chars.get(i), Some('e' | 'E' | 'd' | 'D')) {
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
        let text: String = chars[start..i].iter().map(|c| if matches!(c, 'd' | 'D') { 'e' } else { *c }).collect();
        value = text.parse::<f64>().map_err(|_| VrError::parse(format!("line {line}: bad number `{text}`")))?;
    }
    match chars.get(i) {
        Some('i' | 'j' | 'I' | 'J') if !chars.get(i + 1).is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_') => Ok((Tok::Imag(value), i + 1)),
        _ => Ok((Tok::Num(value), i)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn transpose_and_strings() {
        assert_eq!(toks("a'"), vec![Tok::Ident("a".into()), Tok::Op("'"), Tok::Eof]);
        assert_eq!(toks("x = 'it''s'"), vec![Tok::Ident("x".into()), Tok::Op("="), Tok::Str("it's".into()), Tok::Eof]);
        assert_eq!(toks("[a 'b']"), vec![Tok::Op("["), Tok::Ident("a".into()), Tok::Str("b".into()), Tok::Op("]"), Tok::Eof]);
        assert_eq!(toks("a.'"), vec![Tok::Ident("a".into()), Tok::Op(".'"), Tok::Eof]);
    }

    #[test]
    fn numbers_and_operators() {
        assert_eq!(toks("1.*2"), vec![Tok::Num(1.0), Tok::Op(".*"), Tok::Num(2.0), Tok::Eof]);
        assert_eq!(toks("3i + .5e1"), vec![Tok::Imag(3.0), Tok::Op("+"), Tok::Num(5.0), Tok::Eof]);
        assert_eq!(toks("a != b"), vec![Tok::Ident("a".into()), Tok::Op("~="), Tok::Ident("b".into()), Tok::Eof]);
        assert_eq!(toks("x(2:end)"), vec![Tok::Ident("x".into()), Tok::Op("("), Tok::Num(2.0), Tok::Op(":"), Tok::Ident("end".into()), Tok::Op(")"), Tok::Eof]);
    }

    #[test]
    fn comments_and_continuations() {
        assert_eq!(toks("a = 1 + ... comment\n 2 % more\n"), vec![Tok::Ident("a".into()), Tok::Op("="), Tok::Num(1.0), Tok::Op("+"), Tok::Num(2.0), Tok::Newline, Tok::Eof]);
        assert_eq!(toks("%{\nanything ' here\n%}\nb"), vec![Tok::Newline, Tok::Ident("b".into()), Tok::Eof]);
        assert_eq!(toks("f(1,\n2)"), vec![Tok::Ident("f".into()), Tok::Op("("), Tok::Num(1.0), Tok::Comma, Tok::Num(2.0), Tok::Op(")"), Tok::Eof]);
    }
}
