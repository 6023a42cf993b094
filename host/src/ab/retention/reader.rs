//! A small reader of PTC-Lisp (Clojure syntax) programs, enough to list the names a program
//! uses: its symbols and keywords. It never fails and never panics: any text reads as some
//! sequence of tokens, an unbalanced or malformed program included.
//!
//! How the text is cut into tokens, from left to right:
//! - whitespace and `,` separate tokens; `;` (and `#!`) starts a comment that runs to the end
//!   of the line;
//! - `"` starts a string and `#"` a regex, both up to the next `"` that no `\` escapes (or the
//!   end of the text): one literal, whatever it holds, `(tool/x)` included;
//! - `\` starts a character literal: the next character, whatever it is, then the letters and
//!   digits right after it (`\a`, `\(`, `\newline`, `\u00e9`);
//! - `(`, `[`, `{`, `#{` and `#(` open a form, `)`, `]` and `}` close one;
//! - `'`, `` ` ``, `~`, `~@`, `@`, `#'`, `#?`, `#?@`, `#=` and a tag (`#inst`, `#:ns`) are
//!   prefixes: the form after them is read as any other; `^` is metadata (a form, then the
//!   form it is attached to); `#_` discards the next form: [`read`] leaves out its tokens;
//! - any other character starts a token that runs up to whitespace, `,` or one of
//!   `" ; @ ^ ` ~ ( ) [ ] { } \`: a keyword when it starts with `:` (its name is what follows
//!   the first `:`), a number when it starts with a digit, or with `+` or `-` followed by a
//!   digit, `##Inf` and the like a literal, anything else a symbol (`x`, `user/x`, `tool/x`,
//!   `data/x`, `clojure.string/join`).

/// One token of a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token<'a> {
    /// `(`, `[`, `{`, `#{` or `#(`, as written.
    Open(&'a str),
    /// `)`, `]` or `}`.
    Close,
    Symbol(&'a str),
    /// Its name, without the leading `:`.
    Keyword(&'a str),
    /// A string, regex, character or number, as written (a string with its quotes).
    Literal(&'a str),
    /// A prefix read through: quote, syntax quote, unquote, deref, var quote, reader
    /// conditional, tag.
    Prefix,
    /// `^`: a metadata form, then the form it is attached to.
    Meta,
    /// `#_`: the next form is discarded.
    Discard,
}

/// Characters that end a token (besides whitespace and `,`).
fn is_terminating(c: char) -> bool {
    matches!(
        c,
        '"' | ';' | '@' | '^' | '`' | '~' | '(' | ')' | '[' | ']' | '{' | '}' | '\\'
    )
}

fn is_separator(c: char) -> bool {
    c.is_whitespace() || c == ','
}

fn is_constituent(c: char) -> bool {
    !is_separator(c) && !is_terminating(c)
}

struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<char> {
        self.text[self.at..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += c.len_utf8();
        Some(c)
    }

    /// Consumes `c` when it comes next.
    fn eat(&mut self, c: char) -> bool {
        let next = self.peek() == Some(c);
        if next {
            self.at += c.len_utf8();
        }
        next
    }

    fn bump_while(&mut self, keep: impl Fn(char) -> bool) {
        while self.peek().is_some_and(&keep) {
            self.bump();
        }
    }

    /// The text from `start` to here.
    fn since(&self, start: usize) -> &'a str {
        &self.text[start..self.at]
    }

    fn skip_line(&mut self) {
        self.bump_while(|c| c != '\n');
    }

    /// After an opening `"`: up to and past the closing one.
    fn skip_string(&mut self) {
        while let Some(c) = self.bump() {
            match c {
                '"' => return,
                '\\' => {
                    self.bump();
                }
                _ => {}
            }
        }
    }
}

/// Every token of `text`, discarded forms included.
pub fn tokens(text: &str) -> Vec<Token<'_>> {
    let mut cursor = Cursor { text, at: 0 };
    let mut out = Vec::new();
    while let Some(c) = cursor.peek() {
        let start = cursor.at;
        cursor.bump();
        let token = match c {
            c if is_separator(c) => continue,
            ';' => {
                cursor.skip_line();
                continue;
            }
            '"' => {
                cursor.skip_string();
                Token::Literal(cursor.since(start))
            }
            '\\' => {
                cursor.bump();
                cursor.bump_while(char::is_alphanumeric);
                Token::Literal(cursor.since(start))
            }
            '(' | '[' | '{' => Token::Open(cursor.since(start)),
            ')' | ']' | '}' => Token::Close,
            '\'' | '`' | '@' => Token::Prefix,
            '~' => {
                cursor.eat('@');
                Token::Prefix
            }
            '^' => Token::Meta,
            '#' => match cursor.peek() {
                Some('{' | '(') => {
                    cursor.bump();
                    Token::Open(cursor.since(start))
                }
                Some('_') => {
                    cursor.bump();
                    Token::Discard
                }
                Some('"') => {
                    cursor.bump();
                    cursor.skip_string();
                    Token::Literal(cursor.since(start))
                }
                Some('!') => {
                    cursor.skip_line();
                    continue;
                }
                Some('#') => {
                    cursor.bump_while(is_constituent);
                    Token::Literal(cursor.since(start))
                }
                Some('?') => {
                    cursor.bump();
                    cursor.eat('@');
                    Token::Prefix
                }
                Some('\'' | '=') => {
                    cursor.bump();
                    Token::Prefix
                }
                _ => {
                    cursor.bump_while(is_constituent);
                    Token::Prefix
                }
            },
            ':' => {
                let name = cursor.at;
                cursor.bump_while(is_constituent);
                Token::Keyword(cursor.since(name))
            }
            _ => {
                cursor.bump_while(is_constituent);
                let number = c.is_ascii_digit()
                    || (matches!(c, '+' | '-')
                        && cursor
                            .since(start)
                            .chars()
                            .nth(1)
                            .is_some_and(|d| d.is_ascii_digit()));
                if number {
                    Token::Literal(cursor.since(start))
                } else {
                    Token::Symbol(cursor.since(start))
                }
            }
        };
        out.push(token);
    }
    out
}

/// The tokens of `text` without the forms that `#_` discards (nor the `#_` itself).
pub fn read(text: &str) -> Vec<Token<'_>> {
    let all = tokens(text);
    let mut out = Vec::with_capacity(all.len());
    let mut i = 0;
    while let Some(&token) = all.get(i) {
        if token == Token::Discard {
            i = skip_form(&all, i + 1);
        } else {
            out.push(token);
            i += 1;
        }
    }
    out
}

/// The index right after the form that starts at `i`, its prefixes and metadata included;
/// `i` itself when a closing bracket or the end comes first. Iterative, so that no input
/// (a million `#_` in a row) can exhaust the stack.
fn skip_form(tokens: &[Token<'_>], mut i: usize) -> usize {
    // Forms still to skip.
    let mut pending = 1usize;
    while pending > 0 {
        match tokens.get(i) {
            None | Some(Token::Close) => break,
            // `#_ x y` is `y` with `x` discarded: one more form; metadata likewise.
            Some(Token::Discard | Token::Meta) => {
                pending += 1;
                i += 1;
            }
            Some(Token::Prefix) => i += 1,
            Some(Token::Open(_)) => {
                i = after_close(tokens, i);
                pending -= 1;
            }
            Some(_) => {
                i += 1;
                pending -= 1;
            }
        }
    }
    i
}

/// The index right after the bracket that closes the one opened at `open` (the end when none
/// does).
fn after_close(tokens: &[Token<'_>], open: usize) -> usize {
    let mut depth = 0usize;
    for (i, token) in tokens.iter().enumerate().skip(open) {
        match token {
            Token::Open(_) => depth += 1,
            Token::Close => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

/// The names a program uses.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Names<'a> {
    /// Every symbol read, in order, repeats included, except the name a definition defines:
    /// the symbol right after `(def`, `(defn`, `(defn-`, `(defonce` or `(defmacro`.
    pub symbols: Vec<&'a str>,
    /// Every keyword read (its name), in order, repeats included.
    pub keywords: Vec<&'a str>,
    /// The literals that can be evidence, in order, repeats included: [`Literal`].
    pub literals: Vec<Literal<'a>>,
}

/// A literal of a program that a tool's result may have given it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Literal<'a> {
    /// A string of at least [`MIN_LITERAL_CHARS`] characters with no `\` (so no escape and
    /// no line break): its text between the quotes.
    String(&'a str),
    /// An integer written as at least [`MIN_LITERAL_CHARS`] decimal digits, with no sign and
    /// no leading zero (so that it prints as it is written).
    Integer(i64),
}

/// The fewest characters (or digits) a literal has to be evidence: shorter ones (`"ok"`,
/// `1`, `10`) are as likely to occur by chance as to have been copied from a result.
pub const MIN_LITERAL_CHARS: usize = 3;

impl<'a> Literal<'a> {
    /// The literal a token written `text` is, if it can be evidence.
    fn of(text: &'a str) -> Option<Literal<'a>> {
        if let Some(inner) = text.strip_prefix('"') {
            let inner = inner.strip_suffix('"')?;
            let ok = !inner.contains('\\') && inner.chars().count() >= MIN_LITERAL_CHARS;
            return ok.then_some(Literal::String(inner));
        }
        let digits = text.len() >= MIN_LITERAL_CHARS
            && !text.starts_with('0')
            && text.bytes().all(|b| b.is_ascii_digit());
        digits
            .then(|| text.parse().ok().map(Literal::Integer))
            .flatten()
    }
}

/// The symbols, keywords and literals of `program`, as [`read`] reads them.
pub fn names(program: &str) -> Names<'_> {
    let tokens = read(program);
    let mut names = Names::default();
    for (i, token) in tokens.iter().enumerate() {
        match *token {
            Token::Symbol(symbol) => {
                let defined = i >= 2
                    && tokens[i - 2] == Token::Open("(")
                    && matches!(
                        tokens[i - 1],
                        Token::Symbol("def" | "defn" | "defn-" | "defonce" | "defmacro")
                    );
                if !defined {
                    names.symbols.push(symbol);
                }
            }
            Token::Keyword(name) => names.keywords.push(name),
            Token::Literal(text) => names.literals.extend(Literal::of(text)),
            _ => {}
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::Token::*;
    use super::*;
    use proptest::prelude::*;

    /// Literals are compared by kind here (their text in `literals_that_can_be_evidence`).
    #[allow(non_upper_case_globals)]
    const Literal: Token<'static> = Token::Literal("");

    fn blank(tokens: Vec<Token<'_>>) -> Vec<Token<'_>> {
        tokens
            .into_iter()
            .map(|t| match t {
                Token::Literal(_) => Literal,
                t => t,
            })
            .collect()
    }

    fn tokens(text: &str) -> Vec<Token<'_>> {
        blank(super::tokens(text))
    }

    fn read(text: &str) -> Vec<Token<'_>> {
        blank(super::read(text))
    }

    #[test]
    fn literals_that_can_be_evidence() {
        let program =
            r#"(get-order "ord-1234") (f 42 100 -250 007 1.5 "ok" "a\"b" "line" \abc #"regex")"#;
        assert_eq!(
            names(program).literals,
            [
                super::Literal::String("ord-1234"),
                super::Literal::Integer(100),
                super::Literal::String("line"),
            ]
        );
        assert_eq!(
            super::tokens(r#""ab" 12"#),
            [Token::Literal("\"ab\""), Token::Literal("12")]
        );
    }

    fn symbols(program: &str) -> Vec<&str> {
        names(program).symbols
    }

    fn keywords(program: &str) -> Vec<&str> {
        names(program).keywords
    }

    #[test]
    fn forms_symbols_and_keywords() {
        assert_eq!(
            tokens("(get-in m [:a :b/c] {:d #{x}})"),
            [
                Open("("),
                Symbol("get-in"),
                Symbol("m"),
                Open("["),
                Keyword("a"),
                Keyword("b/c"),
                Close,
                Open("{"),
                Keyword("d"),
                Open("#{"),
                Symbol("x"),
                Close,
                Close,
                Close,
            ]
        );
        assert_eq!(
            tokens("#(* % 2)"),
            [Open("#("), Symbol("*"), Symbol("%"), Literal, Close]
        );
    }

    #[test]
    fn namespaced_symbols_are_one_token() {
        assert_eq!(
            symbols("(tool/get-order {:order-id (first data/orders)}) (user/total) (clojure.string/join \",\" xs)"),
            ["tool/get-order", "first", "data/orders", "user/total", "clojure.string/join", "xs"]
        );
    }

    #[test]
    fn strings_are_one_literal_whatever_they_hold() {
        assert_eq!(
            tokens(r#"(println "(tool/x) \"quoted (tool/y)\" ; not a comment" done)"#),
            [Open("("), Symbol("println"), Literal, Symbol("done"), Close]
        );
        assert_eq!(
            tokens(r#""a\\" b"#),
            [Literal, Symbol("b")],
            "an escaped backslash"
        );
        assert_eq!(
            tokens(r#"#"[a-z]+\"(tool/x)" y"#),
            [Literal, Symbol("y")],
            "a regex"
        );
        assert_eq!(
            tokens(r#"x "never closed (tool/x)"#),
            [Symbol("x"), Literal]
        );
        assert_eq!(
            tokens(r#""a"b"#),
            [Literal, Symbol("b")],
            "a string ends a token"
        );
    }

    #[test]
    fn comments_run_to_the_end_of_the_line() {
        assert_eq!(
            symbols("a ; (tool/x) b\nc #! d\ne;f\ng"),
            ["a", "c", "e", "g"]
        );
        assert_eq!(symbols("; only a comment"), Vec::<&str>::new());
    }

    #[test]
    fn characters_and_numbers_are_literals() {
        assert_eq!(
            tokens(r"(str \a \( \) \newline \u00e9 \; x)"),
            [
                Open("("),
                Symbol("str"),
                Literal,
                Literal,
                Literal,
                Literal,
                Literal,
                Literal,
                Symbol("x"),
                Close
            ]
        );
        assert_eq!(
            tokens("1 -2 +3.5 1e3 22/7 0xFF 42N - + -x +y ##Inf"),
            [
                Literal,
                Literal,
                Literal,
                Literal,
                Literal,
                Literal,
                Literal,
                Symbol("-"),
                Symbol("+"),
                Symbol("-x"),
                Symbol("+y"),
                Literal
            ]
        );
        assert_eq!(tokens("\\"), [Literal], "a lone backslash");
        assert_eq!(tokens("\\ab)"), [Literal, Close]);
    }

    #[test]
    fn separators_and_terminating_characters() {
        assert_eq!(
            tokens("a,b\tc\r\nd"),
            [Symbol("a"), Symbol("b"), Symbol("c"), Symbol("d")]
        );
        assert_eq!(
            tokens("a'b c#d e:f"),
            [Symbol("a'b"), Symbol("c#d"), Symbol("e:f")],
            "' # : do not end a token"
        );
        assert_eq!(
            tokens("a@b^c`d~e\\f"),
            [
                Symbol("a"),
                Prefix,
                Symbol("b"),
                Meta,
                Symbol("c"),
                Prefix,
                Symbol("d"),
                Prefix,
                Symbol("e"),
                Literal
            ]
        );
        assert_eq!(
            tokens("::auto :a:b :"),
            [Keyword(":auto"), Keyword("a:b"), Keyword("")]
        );
    }

    #[test]
    fn prefixes_are_read_through() {
        assert_eq!(
            tokens("'a `b ~c ~@d @e #'f #?(:clj g) #?@(h) #=(i) #inst \"x\" #:ns{:k 1} ^:m j"),
            [
                Prefix,
                Symbol("a"),
                Prefix,
                Symbol("b"),
                Prefix,
                Symbol("c"),
                Prefix,
                Symbol("d"),
                Prefix,
                Symbol("e"),
                Prefix,
                Symbol("f"),
                Prefix,
                Open("("),
                Keyword("clj"),
                Symbol("g"),
                Close,
                Prefix,
                Open("("),
                Symbol("h"),
                Close,
                Prefix,
                Open("("),
                Symbol("i"),
                Close,
                Prefix,
                Literal,
                Prefix,
                Open("{"),
                Keyword("k"),
                Literal,
                Close,
                Meta,
                Keyword("m"),
                Symbol("j"),
            ]
        );
        assert_eq!(symbols("'budget @state"), ["budget", "state"]);
        assert_eq!(tokens("#"), [Prefix], "a lone #");
    }

    #[test]
    fn discard_skips_the_next_form() {
        assert_eq!(symbols("(a #_ b c)"), ["a", "c"]);
        assert_eq!(symbols("(a #_(tool/x [y {z 1}]) c)"), ["a", "c"]);
        assert_eq!(symbols("#_ #_ a b c"), ["c"], "two forms discarded");
        assert_eq!(symbols("#_ ^:m a b"), ["b"], "metadata and its form");
        assert_eq!(symbols("#_ ^{:m x} a b"), ["b"]);
        assert_eq!(symbols("#_ 'a b"), ["b"], "a prefix and its form");
        assert_eq!(symbols("#_ \"s\" #_ :k b"), ["b"]);
        assert_eq!(keywords("#_ :k :j"), ["j"]);
        assert_eq!(symbols("(a #_) b"), ["a", "b"], "nothing left in the form");
        assert_eq!(symbols("a #_"), ["a"], "nothing left at all");
        assert_eq!(
            symbols("#_ (a (b c) d e"),
            Vec::<&str>::new(),
            "never closed"
        );
        assert_eq!(symbols("#_ (a) (b) c"), ["b", "c"]);
        assert_eq!(
            read("(x #_ y)"),
            [Open("("), Symbol("x"), Close],
            "the closing bracket stays"
        );
    }

    #[test]
    fn a_definition_is_not_a_use_of_its_name() {
        let program = "(def total (+ total 1))\n(defn helper [x] (helper x))\n(defn- p [] 1)\n(defonce q 1)\n(defmacro r [] 1)\n[def s] (let [t 1] t)";
        assert_eq!(
            symbols(program),
            [
                "def", "+", "total", "defn", "x", "helper", "x", "defn-", "defonce", "defmacro",
                "def", "s", "let", "t", "t"
            ]
        );
        assert_eq!(symbols("def x"), ["def", "x"], "not in a list");
        assert_eq!(symbols("(def)"), ["def"]);
        assert_eq!(symbols("(f def x)"), ["f", "def", "x"]);
    }

    #[test]
    fn a_whole_program() {
        let program = r#"
;; Pick the in-stock products under budget, per category.
(def picks
  (->> data/products
       (filter #(and (pos? (:stock %)) (<= (:price %) budget)))
       (group-by :category)
       (map (fn [[cat ps]] (apply max-key :rating ps)))))
#_(println "debug" (tool/notify {:to "me"}))
(def rate (tool/get-exchange-rate {:from "CHF" :to "EUR"}))
(println "picks:" (count picks) \: rate) ; done
(return {:top-picks picks :in-stock-count (count in-stock)})
"#;
        let names = names(program);
        assert_eq!(
            names.symbols,
            [
                "def",
                "->>",
                "data/products",
                "filter",
                "and",
                "pos?",
                "%",
                "<=",
                "%",
                "budget",
                "group-by",
                "map",
                "fn",
                "cat",
                "ps",
                "apply",
                "max-key",
                "ps",
                "def",
                "tool/get-exchange-rate",
                "println",
                "count",
                "picks",
                "rate",
                "return",
                "picks",
                "count",
                "in-stock",
            ]
        );
        assert_eq!(
            names.keywords,
            [
                "stock",
                "price",
                "category",
                "rating",
                "from",
                "to",
                "top-picks",
                "in-stock-count"
            ]
        );
    }

    #[test]
    fn deep_or_unbalanced_input_reads() {
        let deep = "(".repeat(100_000) + &")".repeat(100_000);
        assert_eq!(read(&deep).len(), 200_000);
        let discards = "#_".repeat(100_000) + "x";
        assert!(read(&discards).is_empty());
        let nested = "#_".to_owned() + &"(".repeat(100_000) + "x";
        assert!(read(&nested).is_empty());
        assert_eq!(symbols(")))a(((b]]]"), ["a", "b"]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Any text reads, byte soup and lispy soup alike.
        #[test]
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let text = String::from_utf8_lossy(&bytes);
            let _ = names(&text);
        }

        #[test]
        fn never_panics_on_lispy_text(
            parts in proptest::collection::vec(
                prop::sample::select(vec![
                    "(", ")", "[", "]", "{", "}", "#{", "#(", "#_", "#", "\"", "\\", ";", "\n",
                    "'", "`", "~", "~@", "@", "^", ":", "::k", "x", "tool/x", "-1", "+", "é",
                    "#?", "#\"", "##", "#!", " ", ",", "def", "(def ",
                ]),
                0..60,
            )
        ) {
            let text: String = parts.concat();
            let read = read(&text);
            // Discarding only ever removes tokens.
            prop_assert!(read.len() <= tokens(&text).len());
            let _ = names(&text);
        }
    }
}
