//! The reader: PTC-Lisp source text to forms.

use std::rc::Rc;

use crate::value::{LispError, Value};

/// Deepest nesting the reader accepts; deeper source is refused, never overflows the stack.
const MAX_DEPTH: usize = 200;

struct Reader<'a> {
    src: &'a [u8],
    text: &'a str,
    pos: usize,
}

fn parse_error(message: impl Into<String>) -> LispError {
    LispError::new("parse_error", message)
}

/// Reads every top-level form of a program. Closing delimiters left over between or after
/// top-level forms are passed over, as the ptc_runner version that recorded the shared runs
/// did (newer versions refuse them).
pub fn read_program(text: &str) -> Result<Vec<Value>, LispError> {
    let mut r = Reader {
        src: text.as_bytes(),
        text,
        pos: 0,
    };
    let mut forms = Vec::new();
    loop {
        r.skip_ws();
        match r.peek() {
            None => return Ok(forms),
            Some(b')' | b']' | b'}') => r.pos += 1,
            Some(_) => forms.push(r.read(0)?),
        }
    }
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }
    fn skip_ws(&mut self) {
        while let Some(c) = self.peek() {
            if c.is_ascii_whitespace() || c == b',' {
                self.pos += 1;
            } else if c == b';' {
                while let Some(c) = self.peek() {
                    if c == b'\n' {
                        break;
                    }
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }
    fn line_col(&self) -> String {
        let before = &self.text[..self.pos.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
        format!("line {line}, column {col}")
    }
    fn read_seq(&mut self, close: u8, depth: usize) -> Result<Vec<Value>, LispError> {
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            match self.peek() {
                None => {
                    return Err(parse_error(format!(
                        "unexpected end of input, expected '{}'",
                        close as char
                    )))
                }
                Some(c) if c == close => {
                    self.pos += 1;
                    return Ok(items);
                }
                Some(b')' | b']' | b'}') => {
                    return Err(parse_error(format!(
                        "mismatched closing delimiter at {}",
                        self.line_col()
                    )))
                }
                Some(_) => items.push(self.read(depth + 1)?),
            }
        }
    }
    fn read(&mut self, depth: usize) -> Result<Value, LispError> {
        if depth > MAX_DEPTH {
            return Err(parse_error("program nested too deeply"));
        }
        self.skip_ws();
        let c = self
            .peek()
            .ok_or_else(|| parse_error("unexpected end of input"))?;
        match c {
            b'(' => {
                self.pos += 1;
                Ok(Value::List(Rc::new(self.read_seq(b')', depth)?)))
            }
            b'[' => {
                self.pos += 1;
                Ok(Value::vector(self.read_seq(b']', depth)?))
            }
            b'{' => {
                self.pos += 1;
                let items = self.read_seq(b'}', depth)?;
                if items.len() % 2 != 0 {
                    return Err(parse_error(
                        "map literal must contain an even number of forms",
                    ));
                }
                let mut it = items.into_iter();
                let mut pairs = Vec::new();
                while let (Some(k), Some(v)) = (it.next(), it.next()) {
                    pairs.push((k, v));
                }
                // Kept as a call-free form; evaluation builds the map (values are evaluated).
                Ok(Value::List(Rc::new(vec![
                    Value::Symbol(Rc::from("__map_literal")),
                    Value::vector(pairs.into_iter().flat_map(|(k, v)| [k, v]).collect()),
                ])))
            }
            b'"' => self.read_string(),
            b'\'' => {
                self.pos += 1;
                let form = self.read(depth + 1)?;
                Ok(Value::List(Rc::new(vec![
                    Value::Symbol(Rc::from("quote")),
                    form,
                ])))
            }
            b'#' => self.read_dispatch(depth),
            b'\\' => self.read_char(),
            b'@' => Err(parse_error(
                "deref syntax (@var) is not supported. Atoms and refs are not available.",
            )),
            _ => self.read_atom(),
        }
    }
    fn read_dispatch(&mut self, depth: usize) -> Result<Value, LispError> {
        self.pos += 1;
        match self.peek() {
            Some(b'{') => {
                self.pos += 1;
                let items = self.read_seq(b'}', depth)?;
                Ok(Value::List(Rc::new(vec![
                    Value::Symbol(Rc::from("__set_literal")),
                    Value::vector(items),
                ])))
            }
            Some(b'(') => {
                self.pos += 1;
                let body = Value::List(Rc::new(self.read_seq(b')', depth)?));
                Ok(anon_fn(body))
            }
            Some(b'#') => {
                self.pos += 1;
                let sym = self.read_atom()?;
                match sym {
                    Value::Symbol(s) if &*s == "Inf" => Ok(Value::Float(f64::INFINITY)),
                    Value::Symbol(s) if &*s == "-Inf" => Ok(Value::Float(f64::NEG_INFINITY)),
                    Value::Symbol(s) if &*s == "NaN" => Ok(Value::Float(f64::NAN)),
                    _ => Err(parse_error("unknown ## literal")),
                }
            }
            Some(b'"') => {
                // A regex literal: its text read as a string's (escapes alike), compiled.
                let Value::Str(pattern) = self.read_string()? else {
                    unreachable!()
                };
                let p = crate::pattern::Pattern::new(&pattern, "invalid_form")?;
                Ok(Value::Regex(std::rc::Rc::new(p)))
            }
            Some(b'_') => {
                self.pos += 1;
                self.read(depth + 1)?;
                self.skip_ws();
                self.read(depth)
            }
            _ => Err(parse_error(format!(
                "unsupported # form at {}",
                self.line_col()
            ))),
        }
    }
    fn read_string(&mut self) -> Result<Value, LispError> {
        self.pos += 1;
        let mut out = String::new();
        let rest = &self.text[self.pos..];
        let mut chars = rest.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.pos += i + 1;
                    return Ok(Value::str(&out));
                }
                '\\' => match chars.next() {
                    Some((_, 'n')) => out.push('\n'),
                    Some((_, 't')) => out.push('\t'),
                    Some((_, 'r')) => out.push('\r'),
                    Some((_, '"')) => out.push('"'),
                    Some((_, '\\')) => out.push('\\'),
                    Some((_, other)) => {
                        out.push('\\');
                        out.push(other)
                    }
                    None => break,
                },
                c => out.push(c),
            }
        }
        Err(parse_error("unterminated string"))
    }
    fn read_char(&mut self) -> Result<Value, LispError> {
        self.pos += 1;
        let start = self.pos;
        let first = self.text[start..]
            .chars()
            .next()
            .ok_or_else(|| parse_error("bad character literal"))?;
        self.pos += first.len_utf8();
        while let Some(c) = self.peek() {
            if c.is_ascii_alphanumeric() && first.is_ascii_alphabetic() {
                self.pos += 1;
            } else {
                break;
            }
        }
        let name = &self.text[start..self.pos];
        let s = match name {
            "newline" => "\n",
            "space" => " ",
            "tab" => "\t",
            "return" => "\r",
            n if n.chars().count() == 1 => n,
            _ => return Err(parse_error(format!("unknown character literal \\{name}"))),
        };
        Ok(Value::str(s))
    }
    fn read_atom(&mut self) -> Result<Value, LispError> {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c.is_ascii_whitespace() || b"()[]{}\",;".contains(&c) {
                break;
            }
            self.pos += 1;
        }
        let tok = &self.text[start..self.pos];
        if tok.is_empty() {
            return Err(parse_error(format!(
                "could not parse expression at {}",
                self.line_col()
            )));
        }
        Ok(atom(tok))
    }
}

fn atom(tok: &str) -> Value {
    match tok {
        "nil" => return Value::Nil,
        "true" => return Value::Bool(true),
        "false" => return Value::Bool(false),
        _ => {}
    }
    if let Some(k) = tok.strip_prefix(':') {
        return Value::kw(k);
    }
    let digits = tok.strip_prefix(['-', '+']).unwrap_or(tok);
    if digits.starts_with(|c: char| c.is_ascii_digit()) {
        if let Ok(i) = tok.parse::<i64>() {
            return Value::Int(i);
        }
        if let Ok(f) = tok.parse::<f64>() {
            return Value::Float(f);
        }
    }
    Value::Symbol(Rc::from(tok))
}

/// `#(... % ...)` as `(fn [%1 ...] (...))`.
fn anon_fn(body: Value) -> Value {
    fn arity(v: &Value, max: &mut usize, rest: &mut bool) {
        match v {
            Value::Symbol(s) if &**s == "%" => *max = (*max).max(1),
            Value::Symbol(s) if &**s == "%&" => *rest = true,
            Value::Symbol(s) if s.starts_with('%') => {
                if let Ok(n) = s[1..].parse::<usize>() {
                    *max = (*max).max(n)
                }
            }
            Value::List(items) | Value::Vector(items) => {
                items.iter().for_each(|i| arity(i, max, rest))
            }
            _ => {}
        }
    }
    fn rename(v: &Value) -> Value {
        match v {
            Value::Symbol(s) if &**s == "%" => Value::Symbol(Rc::from("%1")),
            Value::List(items) => Value::List(Rc::new(items.iter().map(rename).collect())),
            Value::Vector(items) => Value::vector(items.iter().map(rename).collect()),
            other => other.clone(),
        }
    }
    let (mut max, mut rest) = (0, false);
    arity(&body, &mut max, &mut rest);
    let mut params: Vec<Value> = (1..=max)
        .map(|i| Value::Symbol(Rc::from(format!("%{i}"))))
        .collect();
    if rest {
        params.push(Value::Symbol(Rc::from("&")));
        params.push(Value::Symbol(Rc::from("%&")));
    }
    Value::List(Rc::new(vec![
        Value::Symbol(Rc::from("fn")),
        Value::vector(params),
        rename(&body),
    ]))
}
