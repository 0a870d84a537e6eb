//! The lexical level of the text form: characters to atoms and parenthesized lists.
//!
//! Reading the whole input into a tree of atoms and lists first lets the parser look at
//! a statement's last items (`:line N`, index flags) before it reads the rest. Lists are
//! built with an explicit stack, never by recursion, and nesting deeper than
//! [`MAX_DEPTH`] is an error, so no input can exhaust the stack here or in the parser.

use crate::runtime::error::VrError;
use std::fmt;

/// The deepest nesting of lists the reader accepts. Real programs stay far below it; the
/// limit exists so that the recursive parser and printer run in bounded stack space.
pub const MAX_DEPTH: usize = 256;

/// A 1-based line and column (columns count characters, not bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {} column {}", self.line, self.col)
    }
}

/// A syntax error at a position. Kept small while parsing (the public functions turn it
/// into a `VrError`), in the one format every text-form error uses.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntaxError {
    pub pos: Pos,
    pub message: String,
}

impl From<SyntaxError> for VrError {
    fn from(e: SyntaxError) -> VrError {
        VrError::parse(format!("{}: {}", e.pos, e.message))
    }
}

pub type Parsed<T> = Result<T, SyntaxError>;

pub fn error_at(pos: Pos, message: impl fmt::Display) -> SyntaxError {
    SyntaxError {
        pos,
        message: message.to_string(),
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum SexpKind {
    Atom(String),
    List(Vec<Sexp>),
}

/// One atom or list with its position; `end` is the closing parenthesis of a list (where
/// "missing item" errors point) and equals `pos` for an atom.
#[derive(Clone, Debug, PartialEq)]
pub struct Sexp {
    pub kind: SexpKind,
    pub pos: Pos,
    pub end: Pos,
}

impl Sexp {
    pub fn atom(&self) -> Option<&str> {
        match &self.kind {
            SexpKind::Atom(s) => Some(s),
            SexpKind::List(_) => None,
        }
    }
    /// A keyword is an atom `:name`; the atom `:` alone is the full range, not a keyword.
    pub fn keyword(&self) -> Option<&str> {
        self.atom().filter(|s| s.len() > 1 && s.starts_with(':'))
    }
    /// A short description for error messages: the atom itself, or the list's head.
    pub fn describe(&self) -> String {
        match &self.kind {
            SexpKind::Atom(s) => format!("`{s}`"),
            SexpKind::List(items) => match items.first().and_then(Sexp::atom) {
                Some(head) => format!("`({head} ...)`"),
                None if items.is_empty() => "`()`".to_string(),
                None => "a list".to_string(),
            },
        }
    }
}

/// Tracks the position while walking the characters.
struct Cursor<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    pos: Pos,
}

impl Cursor<'_> {
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }
    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.pos.line = self.pos.line.saturating_add(1);
            self.pos.col = 1;
        } else {
            self.pos.col = self.pos.col.saturating_add(1);
        }
        Some(c)
    }
}

fn is_delimiter(c: char) -> bool {
    c.is_whitespace() || c == '(' || c == ')' || c == ';'
}

/// Read every top-level atom and list of `src`.
pub fn read(src: &str) -> Parsed<Vec<Sexp>> {
    let mut cur = Cursor {
        chars: src.chars().peekable(),
        pos: Pos { line: 1, col: 1 },
    };
    // The lists being built, innermost last: (opening position, items so far).
    let mut open: Vec<(Pos, Vec<Sexp>)> = Vec::new();
    let mut top = Vec::new();
    loop {
        let pos = cur.pos;
        let Some(c) = cur.peek() else { break };
        let finished = match c {
            ';' => {
                while cur.peek().is_some_and(|c| c != '\n') {
                    cur.bump();
                }
                None
            }
            c if c.is_whitespace() => {
                cur.bump();
                None
            }
            '(' => {
                cur.bump();
                if open.len() >= MAX_DEPTH {
                    return Err(error_at(
                        pos,
                        format!("lists nested more than {MAX_DEPTH} deep"),
                    ));
                }
                open.push((pos, Vec::new()));
                None
            }
            ')' => {
                cur.bump();
                let Some((start, items)) = open.pop() else {
                    return Err(error_at(pos, "unexpected `)` with no list open"));
                };
                Some(Sexp {
                    kind: SexpKind::List(items),
                    pos: start,
                    end: pos,
                })
            }
            _ => {
                let mut text = String::new();
                while let Some(c) = cur.peek().filter(|&c| !is_delimiter(c)) {
                    text.push(c);
                    cur.bump();
                }
                Some(Sexp {
                    kind: SexpKind::Atom(text),
                    pos,
                    end: pos,
                })
            }
        };
        if let Some(sexp) = finished {
            match open.last_mut() {
                Some((_, items)) => items.push(sexp),
                None => top.push(sexp),
            }
        }
    }
    if let Some((start, _)) = open.last() {
        return Err(error_at(
            cur.pos,
            format!("unexpected end of input: the list opened at {start} is not closed"),
        ));
    }
    Ok(top)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn atom(s: &str, line: u32, col: u32) -> Sexp {
        let pos = Pos { line, col };
        Sexp {
            kind: SexpKind::Atom(s.to_string()),
            pos,
            end: pos,
        }
    }

    #[test]
    fn reads_atoms_lists_and_positions() {
        let got = read("(a ; comment (\n  b:i32)").unwrap();
        let want = Sexp {
            kind: SexpKind::List(vec![atom("a", 1, 2), atom("b:i32", 2, 3)]),
            pos: Pos { line: 1, col: 1 },
            end: Pos { line: 2, col: 8 },
        };
        assert_eq!(got, vec![want]);
    }

    #[test]
    fn unbalanced_parentheses_are_errors() {
        let e = VrError::from(read("(a))").unwrap_err());
        assert_eq!(
            e.message,
            "line 1 column 4: unexpected `)` with no list open"
        );
        let e = VrError::from(read("(a\n (b)").unwrap_err());
        assert_eq!(
            e.message,
            "line 2 column 5: unexpected end of input: the list opened at line 1 column 1 is not closed"
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let src = "(".repeat(100_000);
        let e = VrError::from(read(&src).unwrap_err());
        assert_eq!(
            e.message,
            format!(
                "line 1 column {}: lists nested more than 256 deep",
                MAX_DEPTH + 1
            )
        );
        assert!(read(&format!(
            "{}{}",
            "(".repeat(MAX_DEPTH),
            ")".repeat(MAX_DEPTH)
        ))
        .is_ok());
    }
}
