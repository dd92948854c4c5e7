package refs

import (
	"math"
	"strconv"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
)

// The reference spec's "jinja-str" values. fsspec renders them with jinja2;
// this is the subset reference sets use, evaluated exactly:
//
//   - "{{ name }}": a template, a gen dimension or a macro argument;
//   - integer and string literals, + - * // % and parentheses on integers
//     (Python semantics: // floors, % takes the divisor's sign), + on
//     strings, unary minus;
//   - "{{ f(c='text') }}": a template whose own text contains "{{" is a
//     macro; calling it with keyword arguments renders it with only those
//     arguments (fsspec's lambda **kwargs: render).
//
// Anything else (filters "|", attribute access, "/", "**", comparisons,
// "{% %}" statements, whitespace control "{{-") is an errUnsupported, and an
// undefined name an error too, where jinja would silently render "": a
// reference must never point at a wrong URL.

// tmplError is a template problem; unsupported says whether the template is
// valid jinja the package cannot evaluate (UNSUPPORTED) or simply wrong
// (INVALID_METADATA).
type tmplError struct {
	msg         string
	unsupported bool
}

func (e *tmplError) Error() string { return e.msg }

func tmplErrorf(unsupported bool, format string, args ...any) error {
	return &tmplError{msg: fmtx.Sprintf(format, args...), unsupported: unsupported}
}

// value is a rendered value: an integer or a string.
type value struct {
	s     string
	i     int64
	isInt bool
}

func (v value) String() string {
	if v.isInt {
		return strconv.FormatInt(v.i, 10)
	}
	return v.s
}

func intValue(i int64) value  { return value{i: i, isInt: true} }
func strValue(s string) value { return value{s: s} }

// template is a parsed jinja-str: literal text and expressions.
type template struct {
	src   string
	parts []tpart
}

type tpart struct {
	text string
	expr node // nil for text
}

type node interface{}

type (
	litNode  struct{ v value }
	nameNode struct{ name string }
	callNode struct {
		name string
		args []kwarg
	}
	binNode struct {
		op   string
		l, r node
	}
	negNode struct{ x node }
)

type kwarg struct {
	name string
	x    node
}

// hasTemplate reports whether s needs rendering.
func hasTemplate(s string) bool {
	return strings.Contains(s, "{{") || strings.Contains(s, "{%") || strings.Contains(s, "{#")
}

// parseTemplate splits s into text and "{{ }}" expressions.
func parseTemplate(s string) (*template, error) {
	t := &template{src: s}
	rest := s
	for {
		i := -1
		for k := 0; k+1 < len(rest); k++ {
			if rest[k] == '{' && (rest[k+1] == '{' || rest[k+1] == '%' || rest[k+1] == '#') {
				i = k
				break
			}
		}
		if i < 0 {
			if rest != "" {
				t.parts = append(t.parts, tpart{text: rest})
			}
			return t, nil
		}
		if rest[i+1] == '%' {
			return nil, tmplErrorf(true, "jinja statements ({%% %%}) are not supported")
		}
		if rest[i+1] == '#' {
			return nil, tmplErrorf(true, "jinja comments ({# #}) are not supported")
		}
		if i > 0 {
			t.parts = append(t.parts, tpart{text: rest[:i]})
		}
		end := strings.Index(rest[i+2:], "}}")
		if end < 0 {
			return nil, tmplErrorf(false, "unclosed {{")
		}
		src := rest[i+2 : i+2+end]
		if strings.HasPrefix(src, "-") || strings.HasSuffix(src, "-") {
			return nil, tmplErrorf(true, "jinja whitespace control in {{%s}} is not supported", src)
		}
		x, err := parseExpr(src)
		if err != nil {
			return nil, err
		}
		t.parts = append(t.parts, tpart{expr: x})
		rest = rest[i+2+end+2:]
	}
}

// env is what names resolve to while rendering.
type env struct {
	vars      map[string]value  // gen dimensions or macro arguments
	templates map[string]string // template texts
	compiled  map[string]*template
	depth     int
}

const maxMacroDepth = 16

// maxRendered bounds what one template renders to (macros calling macros
// could otherwise double it at every level).
const maxRendered = 1 << 16

func (t *template) render(e *env) (string, error) {
	if len(t.parts) == 1 && t.parts[0].expr == nil {
		return t.parts[0].text, nil
	}
	var b strings.Builder
	for _, p := range t.parts {
		if p.expr == nil {
			b.WriteString(p.text)
			continue
		}
		v, err := eval(p.expr, e)
		if err != nil {
			return "", err
		}
		b.WriteString(v.String())
		if b.Len() > maxRendered {
			return "", tmplErrorf(true, "renders to more than %d bytes", maxRendered)
		}
	}
	return b.String(), nil
}

func (e *env) template(name string) (*template, error) {
	if t, ok := e.compiled[name]; ok {
		return t, nil
	}
	t, err := parseTemplate(e.templates[name])
	if err != nil {
		return nil, tmplErrorf(err.(*tmplError).unsupported, "template %q: %v", name, err)
	}
	if e.compiled == nil {
		e.compiled = map[string]*template{}
	}
	e.compiled[name] = t
	return t, nil
}

func eval(n node, e *env) (value, error) {
	switch x := n.(type) {
	case litNode:
		return x.v, nil
	case nameNode:
		if v, ok := e.vars[x.name]; ok {
			return v, nil
		}
		if s, ok := e.templates[x.name]; ok {
			if hasTemplate(s) {
				return value{}, tmplErrorf(true, "template %q is a macro (its text has {{ }}); only calls like %s(name='value') are supported", x.name, x.name)
			}
			return strValue(s), nil
		}
		return value{}, tmplErrorf(false, "undefined name %q", x.name)
	case callNode:
		s, ok := e.templates[x.name]
		if !ok {
			if _, isVar := e.vars[x.name]; isVar {
				return value{}, tmplErrorf(false, "%q is not callable", x.name)
			}
			return value{}, tmplErrorf(false, "undefined template %q", x.name)
		}
		if e.depth >= maxMacroDepth {
			return value{}, tmplErrorf(false, "templates call each other more than %d deep", maxMacroDepth)
		}
		if !hasTemplate(s) {
			return value{}, tmplErrorf(false, "template %q is a plain string, not callable", x.name)
		}
		t, err := e.template(x.name)
		if err != nil {
			return value{}, err
		}
		inner := &env{vars: map[string]value{}, templates: nil, depth: e.depth + 1}
		for _, a := range x.args {
			v, err := eval(a.x, e)
			if err != nil {
				return value{}, err
			}
			inner.vars[a.name] = v
		}
		// a macro sees only its arguments, as fsspec's
		// lambda temp=v, **kwargs: jinja2.Template(temp).render(**kwargs)
		out, err := t.render(inner)
		if err != nil {
			return value{}, err
		}
		return strValue(out), nil
	case negNode:
		v, err := eval(x.x, e)
		if err != nil {
			return value{}, err
		}
		if !v.isInt {
			return value{}, tmplErrorf(false, "cannot negate the string %q", v.s)
		}
		if v.i == math.MinInt64 {
			return value{}, tmplErrorf(true, "integer overflow")
		}
		return intValue(-v.i), nil
	case binNode:
		l, err := eval(x.l, e)
		if err != nil {
			return value{}, err
		}
		r, err := eval(x.r, e)
		if err != nil {
			return value{}, err
		}
		if x.op == "+" && !l.isInt && !r.isInt && len(l.s)+len(r.s) > maxRendered {
			return value{}, tmplErrorf(true, "renders to more than %d bytes", maxRendered)
		}
		return binop(x.op, l, r)
	}
	return value{}, tmplErrorf(false, "bad expression")
}

func binop(op string, l, r value) (value, error) {
	if !l.isInt || !r.isInt {
		if op == "+" && !l.isInt && !r.isInt {
			return strValue(l.s + r.s), nil
		}
		return value{}, tmplErrorf(true, "%s on %s and %s is not supported", op, kindOf(l), kindOf(r))
	}
	a, b := l.i, r.i
	overflow := tmplErrorf(true, "integer overflow in %d %s %d", a, op, b)
	switch op {
	case "+":
		s := a + b
		if (s > a) != (b > 0) {
			return value{}, overflow
		}
		return intValue(s), nil
	case "-":
		s := a - b
		if (s < a) != (b > 0) {
			return value{}, overflow
		}
		return intValue(s), nil
	case "*":
		if a == 0 || b == 0 {
			return intValue(0), nil
		}
		p := a * b
		if p/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
			return value{}, overflow
		}
		return intValue(p), nil
	case "//", "%":
		if b == 0 {
			return value{}, tmplErrorf(false, "division by zero")
		}
		if a == math.MinInt64 && b == -1 {
			return value{}, overflow
		}
		q, m := a/b, a%b
		if m != 0 && (m < 0) != (b < 0) { // Python floors
			q--
			m += b
		}
		if op == "//" {
			return intValue(q), nil
		}
		return intValue(m), nil
	}
	return value{}, tmplErrorf(true, "operator %s is not supported", op)
}

func kindOf(v value) string {
	if v.isInt {
		return "an integer"
	}
	return "a string"
}

// expression parser

type lexer struct {
	src  string
	toks []string
	pos  int
}

func lex(src string) ([]string, error) {
	var toks []string
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c >= '0' && c <= '9':
			j := i
			for j < len(src) && (src[j] >= '0' && src[j] <= '9' || src[j] == '_') {
				j++
			}
			if j < len(src) && (src[j] == '.' || src[j] == 'e' || src[j] == 'E' || src[j] == 'x' || src[j] == 'o' || src[j] == 'b') {
				return nil, tmplErrorf(true, "number %q is not supported (integers only)", src[i:min(j+1, len(src))])
			}
			toks = append(toks, src[i:j])
			i = j
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(src) && (src[j] == '_' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			toks = append(toks, src[i:j])
			i = j
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' {
					return nil, tmplErrorf(true, "escapes in string literals are not supported")
				}
				j++
			}
			if j >= len(src) {
				return nil, tmplErrorf(false, "unterminated string literal")
			}
			toks = append(toks, src[i:j+1])
			i = j + 1
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			toks = append(toks, "//")
			i += 2
		case c == '*' && i+1 < len(src) && src[i+1] == '*':
			return nil, tmplErrorf(true, "operator ** is not supported")
		case strings.IndexByte("+-*%(),=", c) >= 0:
			if c == '=' && i+1 < len(src) && src[i+1] == '=' {
				return nil, tmplErrorf(true, "comparisons are not supported")
			}
			toks = append(toks, string(c))
			i++
		default:
			what := string(c)
			switch c {
			case '|':
				what = "filters (|)"
			case '.':
				what = "attribute access (.)"
			case '[':
				what = "subscripts ([])"
			case '/':
				what = "true division (/); use //"
			case '~':
				what = "string concatenation with ~"
			}
			return nil, tmplErrorf(true, "%s not supported in {{%s}}", what, src)
		}
	}
	return toks, nil
}

var keywords = map[string]bool{
	"and": true, "or": true, "not": true, "if": true, "else": true, "in": true, "is": true,
	"true": true, "false": true, "none": true, "True": true, "False": true, "None": true,
	"for": true, "loop": true, "range": true,
}

func parseExpr(src string) (node, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, tmplErrorf(false, "empty {{ }}")
	}
	p := &lexer{src: src, toks: toks}
	n, err := p.sum()
	if err != nil {
		return nil, err
	}
	if p.pos != len(p.toks) {
		return nil, tmplErrorf(true, "cannot evaluate {{%s}} (unexpected %q)", src, p.toks[p.pos])
	}
	return n, nil
}

func (p *lexer) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *lexer) sum() (node, error) {
	l, err := p.product()
	if err != nil {
		return nil, err
	}
	for op := p.peek(); op == "+" || op == "-"; op = p.peek() {
		p.pos++
		r, err := p.product()
		if err != nil {
			return nil, err
		}
		l = binNode{op: op, l: l, r: r}
	}
	return l, nil
}

func (p *lexer) product() (node, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for op := p.peek(); op == "*" || op == "//" || op == "%"; op = p.peek() {
		p.pos++
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		l = binNode{op: op, l: l, r: r}
	}
	return l, nil
}

func (p *lexer) unary() (node, error) {
	switch p.peek() {
	case "-":
		p.pos++
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return negNode{x: x}, nil
	case "+":
		p.pos++
		return p.unary()
	}
	return p.primary()
}

func (p *lexer) primary() (node, error) {
	t := p.peek()
	if t == "" {
		return nil, tmplErrorf(false, "{{%s}} ends early", p.src)
	}
	p.pos++
	switch {
	case t == "(":
		x, err := p.sum()
		if err != nil {
			return nil, err
		}
		if p.peek() != ")" {
			return nil, tmplErrorf(true, "cannot evaluate {{%s}} (expected \")\")", p.src)
		}
		p.pos++
		return x, nil
	case t[0] >= '0' && t[0] <= '9':
		d := strings.ReplaceAll(t, "_", "")
		if len(d) > 1 && d[0] == '0' {
			return nil, tmplErrorf(false, "integer %q has a leading zero", t)
		}
		v, err := strconv.ParseInt(d, 10, 64)
		if err != nil {
			return nil, tmplErrorf(true, "integer %s does not fit in 64 bits", t)
		}
		return litNode{v: intValue(v)}, nil
	case t[0] == '\'' || t[0] == '"':
		return litNode{v: strValue(t[1 : len(t)-1])}, nil
	case t[0] == '_' || t[0] >= 'a' && t[0] <= 'z' || t[0] >= 'A' && t[0] <= 'Z':
		if keywords[t] {
			return nil, tmplErrorf(true, "%q expressions are not supported", t)
		}
		if p.peek() != "(" {
			return nameNode{name: t}, nil
		}
		p.pos++
		c := callNode{name: t}
		for p.peek() != ")" {
			if len(c.args) > 0 {
				if p.peek() != "," {
					return nil, tmplErrorf(true, "cannot evaluate {{%s}} (expected \",\")", p.src)
				}
				p.pos++
				if p.peek() == ")" {
					break
				}
			}
			name := p.peek()
			if name == "" || !(name[0] == '_' || name[0] >= 'a' && name[0] <= 'z' || name[0] >= 'A' && name[0] <= 'Z') ||
				p.pos+1 >= len(p.toks) || p.toks[p.pos+1] != "=" {
				return nil, tmplErrorf(true, "only keyword arguments (name=value) are supported in {{%s}}", p.src)
			}
			p.pos += 2
			x, err := p.sum()
			if err != nil {
				return nil, err
			}
			c.args = append(c.args, kwarg{name: name, x: x})
		}
		if p.peek() != ")" {
			return nil, tmplErrorf(false, "{{%s}}: unclosed call", p.src)
		}
		p.pos++
		return c, nil
	}
	return nil, tmplErrorf(true, "cannot evaluate {{%s}} (unexpected %q)", p.src, t)
}
