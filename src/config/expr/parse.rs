//! Lexer and recursive-descent parser of [`expr`](super) (grammar in its module docs).

use super::{BinOp, Expr, ExprError, Func};
use crate::ad::Sx;

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(f64),
    Name(String),
    Op(char),
    Pow,
    LParen,
    RParen,
    Comma,
    End,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    /// 1-based column.
    pos: usize,
    /// The text as written.
    text: String,
}

fn lex(text: &str) -> Result<Vec<Token>, ExprError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let pos = i + 1;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
                let mut k = i + 1;
                if k < chars.len() && (chars[k] == '+' || chars[k] == '-') {
                    k += 1;
                }
                if k < chars.len() && chars[k].is_ascii_digit() {
                    i = k;
                    while i < chars.len() && chars[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            // A number glued to a name (`2x`) is malformed.
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let s: String = chars[start..i].iter().collect();
            let x: f64 = s.parse().map_err(|_| ExprError::BadNumber {
                pos,
                text: s.clone(),
            })?;
            out.push(Token {
                tok: Tok::Num(x),
                pos,
                text: s,
            });
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let s: String = chars[start..i].iter().collect();
            out.push(Token {
                tok: Tok::Name(s.clone()),
                pos,
                text: s,
            });
            continue;
        }
        let (tok, len) = match c {
            '*' if chars.get(i + 1) == Some(&'*') => (Tok::Pow, 2),
            '^' => (Tok::Pow, 1),
            '+' | '-' | '*' | '/' => (Tok::Op(c), 1),
            '(' => (Tok::LParen, 1),
            ')' => (Tok::RParen, 1),
            ',' => (Tok::Comma, 1),
            _ => return Err(ExprError::BadChar { pos, ch: c }),
        };
        out.push(Token {
            tok,
            pos,
            text: chars[i..i + len].iter().collect(),
        });
        i += len;
    }
    out.push(Token {
        tok: Tok::End,
        pos: chars.len() + 1,
        text: String::new(),
    });
    Ok(out)
}

struct Parser<'a> {
    toks: Vec<Token>,
    i: usize,
    resolve: &'a dyn Fn(&str) -> Option<usize>,
}

impl Parser<'_> {
    fn peek(&self) -> &Token {
        &self.toks[self.i.min(self.toks.len() - 1)]
    }

    fn next(&mut self) -> Token {
        let t = self.peek().clone();
        if self.i < self.toks.len() - 1 {
            self.i += 1;
        }
        t
    }

    fn unexpected(t: &Token, expected: &'static str) -> ExprError {
        let found = if t.tok == Tok::End {
            "end of input".to_string()
        } else {
            format!("'{}'", t.text)
        };
        ExprError::Unexpected {
            pos: t.pos,
            found,
            expected,
        }
    }

    fn expr(&mut self) -> Result<Expr, ExprError> {
        let mut lhs = self.term()?;
        loop {
            let op = match self.peek().tok {
                Tok::Op('+') => BinOp::Add,
                Tok::Op('-') => BinOp::Sub,
                _ => return Ok(lhs),
            };
            self.next();
            let rhs = self.term()?;
            lhs = Expr::Bin(op, Box::new(lhs), Box::new(rhs));
        }
    }

    fn term(&mut self) -> Result<Expr, ExprError> {
        let mut lhs = self.unary()?;
        loop {
            let op = match self.peek().tok {
                Tok::Op('*') => BinOp::Mul,
                Tok::Op('/') => BinOp::Div,
                _ => return Ok(lhs),
            };
            self.next();
            let rhs = self.unary()?;
            lhs = Expr::Bin(op, Box::new(lhs), Box::new(rhs));
        }
    }

    fn unary(&mut self) -> Result<Expr, ExprError> {
        match self.peek().tok {
            Tok::Op('-') => {
                self.next();
                let a = self.unary()?;
                Ok(match a {
                    Expr::Num(x) => Expr::Num(-x),
                    a => Expr::Neg(Box::new(a)),
                })
            }
            Tok::Op('+') => {
                self.next();
                self.unary()
            }
            _ => self.power(),
        }
    }

    fn power(&mut self) -> Result<Expr, ExprError> {
        let base = self.primary()?;
        if self.peek().tok == Tok::Pow {
            self.next();
            let e = self.unary()?;
            return Ok(Expr::Bin(BinOp::Pow, Box::new(base), Box::new(e)));
        }
        Ok(base)
    }

    fn primary(&mut self) -> Result<Expr, ExprError> {
        let t = self.next();
        match &t.tok {
            Tok::Num(x) => Ok(Expr::Num(*x)),
            Tok::LParen => {
                let e = self.expr()?;
                let close = self.next();
                if close.tok != Tok::RParen {
                    return Err(Self::unexpected(&close, "')'"));
                }
                Ok(e)
            }
            Tok::Name(name) => {
                if self.peek().tok == Tok::LParen {
                    let Some(f) = Func::from_name(name) else {
                        return Err(ExprError::UnknownFunction {
                            pos: t.pos,
                            name: name.clone(),
                        });
                    };
                    self.next();
                    let mut args = vec![self.expr()?];
                    loop {
                        let sep = self.next();
                        match sep.tok {
                            Tok::Comma => args.push(self.expr()?),
                            Tok::RParen => break,
                            _ => return Err(Self::unexpected(&sep, "',' or ')'")),
                        }
                    }
                    if args.len() != f.arity() {
                        return Err(ExprError::Arity {
                            pos: t.pos,
                            name: name.clone(),
                            expected: f.arity(),
                            got: args.len(),
                        });
                    }
                    return Ok(Expr::Call(f, args));
                }
                if name == "pi" {
                    return Ok(Expr::Num(std::f64::consts::PI));
                }
                match (self.resolve)(name) {
                    Some(index) => Ok(Expr::Sym { index, pos: t.pos }),
                    None => Err(ExprError::UnknownSymbol {
                        pos: t.pos,
                        name: name.clone(),
                    }),
                }
            }
            _ => Err(Self::unexpected(&t, "a number, a name or '('")),
        }
    }
}

/// Parse `text`; `resolve` maps every name that is not a function or `pi` to a symbol index
/// (`None`: unknown symbol, an error naming it).
pub fn parse(text: &str, resolve: &dyn Fn(&str) -> Option<usize>) -> Result<Expr, ExprError> {
    let toks = lex(text)?;
    let mut p = Parser {
        toks,
        i: 0,
        resolve,
    };
    let e = p.expr()?;
    let t = p.next();
    if t.tok != Tok::End {
        return Err(Parser::unexpected(&t, "an operator or end of input"));
    }
    Ok(e)
}

/// Parse `text` and evaluate it symbolically: `values[index]` for every symbol the resolver
/// maps to `index`.
pub fn parse_sx(
    text: &str,
    resolve: &dyn Fn(&str) -> Option<usize>,
    values: &[Sx],
) -> Result<Sx, ExprError> {
    Ok(parse(text, resolve)?.eval(values))
}
