// Package fmtx formats the engine's error messages and the few strings it
// builds with printf-style verbs, without the standard library's fmt (and so
// without reflect and time's formatting), which would otherwise be linked
// into every build of the WebAssembly engine.
//
// It prints what fmt prints for the argument types and verbs the engine
// uses, chosen by a type switch:
//
//   - string, []byte, bool, every int and uint type, float32, float64;
//   - error and fmt.Stringer values (their Error or String text);
//   - []int, []int64, []uint64, []string, []any and map[string]any (decoded
//     JSON), elements formatted like the slice;
//   - nil.
//
// Verbs: %v %s %q %x %X for text; %v %d %x %X %o %b %c %q for integers; %v %f %e
// %g for floats; %t for bools; %T; %w (Errorf only). Flags: '0', '-', '+',
// ' ', width and precision (also as '*'). Any other type (a named type
// without Error or String, a struct, a pointer, ...) prints as
// "%!v(unsupported)" (with the directive's verb); package internal/fmtx's
// tests check every call site in the module statically so that none passes
// one, and compare the output with fmt's for every supported verb and type.
package fmtx

import (
	"errors"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Sprintf formats like fmt.Sprintf.
func Sprintf(format string, args ...any) string {
	p := printer{}
	p.printf(format, args)
	return string(p.buf)
}

// Appendf appends what Sprintf(format, args...) returns to b.
func Appendf(b []byte, format string, args ...any) []byte {
	p := printer{buf: b}
	p.printf(format, args)
	return p.buf
}

// Sprint formats like fmt.Sprint: each operand with %v, a space between two
// operands when neither is a string.
func Sprint(args ...any) string {
	p := printer{}
	prevString := false
	for i, a := range args {
		_, isString := a.(string)
		if i > 0 && !isString && !prevString {
			p.putByte(' ')
		}
		p.printArg(a, 'v')
		prevString = isString
	}
	return string(p.buf)
}

// Errorf formats like fmt.Errorf: the error's text is Sprintf's, and each %w
// operand that is an error is wrapped (errors.Is and errors.As reach it).
func Errorf(format string, args ...any) error {
	p := printer{wrap: true}
	p.printf(format, args)
	msg := string(p.buf)
	switch len(p.wrapped) {
	case 0:
		return errors.New(msg)
	case 1:
		e, _ := args[p.wrapped[0]].(error)
		return &wrapError{msg, e}
	}
	idx := slices.Clone(p.wrapped)
	slices.Sort(idx)
	var list []error
	for i, n := range idx {
		if i > 0 && idx[i-1] == n {
			continue
		}
		if e, ok := args[n].(error); ok {
			list = append(list, e)
		}
	}
	return &wrapErrors{msg, list}
}

type wrapError struct {
	msg string
	err error
}

func (e *wrapError) Error() string { return e.msg }
func (e *wrapError) Unwrap() error { return e.err }

type wrapErrors struct {
	msg  string
	errs []error
}

func (e *wrapErrors) Error() string   { return e.msg }
func (e *wrapErrors) Unwrap() []error { return e.errs }

// typeNamers name types TypeName does not know (see NameType).
var typeNamers []func(any) string

// NameType adds a function that returns the %T name of the values it knows
// (and "" for others), for a package's own types that decoded values carry
// (encoding/json's Number, for one).
func NameType(f func(any) string) { typeNamers = append(typeNamers, f) }

// TypeName returns the name %T prints for v ("int", "[]interface {}",
// "<nil>", ...), or "?" for a type this package does not know.
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "<nil>"
	case bool:
		return "bool"
	case int:
		return "int"
	case int8:
		return "int8"
	case int16:
		return "int16"
	case int32:
		return "int32"
	case int64:
		return "int64"
	case uint:
		return "uint"
	case uint8:
		return "uint8"
	case uint16:
		return "uint16"
	case uint32:
		return "uint32"
	case uint64:
		return "uint64"
	case uintptr:
		return "uintptr"
	case float32:
		return "float32"
	case float64:
		return "float64"
	case string:
		return "string"
	case []byte:
		return "[]uint8"
	case []int:
		return "[]int"
	case []int64:
		return "[]int64"
	case []uint64:
		return "[]uint64"
	case []float64:
		return "[]float64"
	case []string:
		return "[]string"
	case []any:
		return "[]interface {}"
	case map[string]any:
		return "map[string]interface {}"
	}
	for _, f := range typeNamers {
		if n := f(v); n != "" {
			return n
		}
	}
	return "?"
}

// printer holds the output and the current directive's flags.
type printer struct {
	buf []byte

	minus, plus, sharp, space, zero bool
	wid, prec                       int
	widOK, precOK                   bool

	wrap     bool  // Errorf: %w is allowed
	wrapped  []int // indexes of the %w operands
	erroring bool  // printing a bad verb's operand: no Error/String calls
}

// put and putByte append to the output (not inlined: each append inlined
// costs the WebAssembly module a few hundred bytes).
//
//go:noinline
func (p *printer) put(s string) { p.buf = append(p.buf, s...) }

//go:noinline
func (p *printer) putByte(c byte) { p.buf = append(p.buf, c) }

func (p *printer) clearFlags() {
	p.minus, p.plus, p.sharp, p.space, p.zero = false, false, false, false, false
	p.wid, p.prec, p.widOK, p.precOK = 0, 0, false, false
}

// number parses decimal digits at s[i:], returning the value, whether there
// were any, and the index after them.
func number(s string, i int) (n int, ok bool, end int) {
	for ; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
		if n > 1e6 { // absurd width or precision: fmt's limit
			return 0, false, len(s)
		}
		n = n*10 + int(s[i]-'0')
		ok = true
	}
	return n, ok, i
}

func (p *printer) printf(format string, args []any) {
	argNum := 0
	end := len(format)
	for i := 0; i < end; {
		lasti := i
		for i < end && format[i] != '%' {
			i++
		}
		if i > lasti {
			p.put(format[lasti:i])
		}
		if i >= end {
			break
		}
		i++ // skip '%'
		p.clearFlags()
	flags:
		for ; i < end; i++ {
			switch format[i] {
			case '#':
				p.sharp = true
			case '0':
				p.zero = true
			case '+':
				p.plus = true
			case '-':
				p.minus = true
			case ' ':
				p.space = true
			default:
				break flags
			}
		}
		// width
		if i < end && format[i] == '*' {
			i++
			p.wid, p.widOK, argNum = intArg(args, argNum)
			if !p.widOK {
				p.put("%!(BADWIDTH)")
			}
			if p.wid < 0 {
				p.wid = -p.wid
				p.minus = true
			}
		} else {
			p.wid, p.widOK, i = number(format, i)
		}
		// precision
		if i+1 <= end && i < end && format[i] == '.' {
			i++
			if i < end && format[i] == '*' {
				i++
				p.prec, p.precOK, argNum = intArg(args, argNum)
				if p.prec < 0 {
					p.prec = 0
					p.precOK = false
				}
				if !p.precOK {
					p.put("%!(BADPREC)")
				}
			} else {
				p.prec, p.precOK, i = number(format, i)
				p.precOK = true
			}
		}
		if p.minus {
			p.zero = false // no zero padding to the right
		}
		if i >= end {
			p.put("%!(NOVERB)")
			break
		}
		verb, size := rune(format[i]), 1
		if verb >= utf8.RuneSelf {
			verb, size = utf8.DecodeRuneInString(format[i:])
		}
		i += size
		switch {
		case verb == '%':
			p.putByte('%')
		case argNum >= len(args):
			p.put("%!")
			p.buf = utf8.AppendRune(p.buf, verb)
			p.put("(MISSING)")
		case verb == 'w' && p.wrap:
			if _, ok := args[argNum].(error); ok {
				p.wrapped = append(p.wrapped, argNum)
				p.printArg(args[argNum], 'v')
			} else {
				p.badVerb(verb, args[argNum])
			}
			argNum++
		default:
			p.printArg(args[argNum], verb)
			argNum++
		}
	}
	if argNum < len(args) {
		p.clearFlags()
		p.put("%!(EXTRA ")
		for k, a := range args[argNum:] {
			if k > 0 {
				p.put(", ")
			}
			if a == nil {
				p.put("<nil>")
				continue
			}
			p.put(TypeName(a))
			p.putByte('=')
			p.printArg(a, 'v')
		}
		p.putByte(')')
	}
}

// intArg takes an int operand for a '*' width or precision.
func intArg(args []any, n int) (v int, ok bool, next int) {
	if n >= len(args) {
		return 0, false, n
	}
	v, ok = args[n].(int)
	if ok && (v > 1e6 || v < -1e6) {
		v, ok = 0, false
	}
	return v, ok, n + 1
}

func (p *printer) badVerb(verb rune, arg any) {
	p.erroring = true
	p.put("%!")
	p.buf = utf8.AppendRune(p.buf, verb)
	p.putByte('(')
	if arg != nil {
		p.put(TypeName(arg))
		p.putByte('=')
		p.printArg(arg, 'v')
	} else {
		p.put("<nil>")
	}
	p.putByte(')')
	p.erroring = false
}

func (p *printer) unsupported(verb rune) {
	p.put("%!")
	p.buf = utf8.AppendRune(p.buf, verb)
	p.put("(unsupported)")
}

// printArg prints one operand. depth > 0 inside slices and maps.
func (p *printer) printArg(arg any, verb rune) {
	p.printValue(arg, verb, 0)
}

func (p *printer) printValue(arg any, verb rune, depth int) {
	if arg == nil {
		if depth > 0 {
			p.padString("<nil>")
			return
		}
		switch verb {
		case 'T', 'v':
			p.padString("<nil>")
		default:
			p.badVerb(verb, nil)
		}
		return
	}
	if verb == 'T' && depth == 0 {
		p.fmtS(TypeName(arg))
		return
	}
	if u, signed, ok := integer(arg); ok {
		p.fmtInt(u, signed, verb, arg)
		return
	}
	switch v := arg.(type) {
	case bool:
		p.fmtBool(v, verb)
	case float32:
		p.fmtFloat(float64(v), 32, verb)
	case float64:
		p.fmtFloat(v, 64, verb)
	case string:
		p.fmtString(v, verb, arg)
	case []byte:
		p.fmtBytes(v, verb, arg)
	default:
		if p.handleMethods(arg, verb) {
			return
		}
		switch v := arg.(type) {
		case []int:
			p.printList(len(v), func(i int) any { return v[i] }, verb, depth)
		case []int64:
			p.printList(len(v), func(i int) any { return v[i] }, verb, depth)
		case []uint64:
			p.printList(len(v), func(i int) any { return v[i] }, verb, depth)
		case []float64:
			p.printList(len(v), func(i int) any { return v[i] }, verb, depth)
		case []string:
			p.printList(len(v), func(i int) any { return v[i] }, verb, depth)
		case []any:
			p.printList(len(v), func(i int) any { return v[i] }, verb, depth)
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			p.put("map[")
			for i, k := range keys {
				if i > 0 {
					p.putByte(' ')
				}
				p.printValue(k, verb, depth+1)
				p.putByte(':')
				p.printValue(v[k], verb, depth+1)
			}
			p.putByte(']')
		default:
			p.unsupported(verb)
		}
	}
}

// integer returns an integer operand's bits (two's complement for signed
// types).
func integer(arg any) (u uint64, signed, ok bool) {
	switch v := arg.(type) {
	case int:
		return uint64(v), true, true
	case int8:
		return uint64(v), true, true
	case int16:
		return uint64(v), true, true
	case int32:
		return uint64(v), true, true
	case int64:
		return uint64(v), true, true
	case uint:
		return uint64(v), false, true
	case uint8:
		return uint64(v), false, true
	case uint16:
		return uint64(v), false, true
	case uint32:
		return uint64(v), false, true
	case uint64:
		return v, false, true
	case uintptr:
		return uint64(v), false, true
	}
	return 0, false, false
}

// printList prints n elements in brackets, separated by spaces.
func (p *printer) printList(n int, elem func(int) any, verb rune, depth int) {
	p.putByte('[')
	for i := 0; i < n; i++ {
		if i > 0 {
			p.putByte(' ')
		}
		p.printValue(elem(i), verb, depth+1)
	}
	p.putByte(']')
}

// handleMethods prints an error's or a Stringer's text for the verbs that
// print text, reporting whether it did.
func (p *printer) handleMethods(arg any, verb rune) (handled bool) {
	if p.erroring {
		return false
	}
	switch verb {
	case 'v', 's', 'x', 'X', 'q':
	default:
		return false
	}
	switch v := arg.(type) {
	case error:
		defer p.catchPanic(verb, "Error")
		p.fmtString(v.Error(), verb, arg)
		return true
	case interface{ String() string }:
		defer p.catchPanic(verb, "String")
		p.fmtString(v.String(), verb, arg)
		return true
	}
	return false
}

// catchPanic prints what fmt prints when an Error or String method panics
// (fmt prints "<nil>" for a nil pointer receiver, which needs reflect to
// tell; the engine's types do not panic on either).
func (p *printer) catchPanic(verb rune, method string) {
	if err := recover(); err != nil {
		p.clearFlags()
		p.put("%!")
		p.buf = utf8.AppendRune(p.buf, verb)
		p.put("(PANIC=")
		p.put(method)
		p.put(" method: ")
		p.erroring = true
		p.printArg(err, 'v')
		p.erroring = false
		p.putByte(')')
	}
}

// ---- padding ----

func (p *printer) writePadding(n int) {
	if n <= 0 {
		return
	}
	c := byte(' ')
	if p.zero && !p.minus {
		c = '0'
	}
	for ; n > 0; n-- {
		p.putByte(c)
	}
}

func (p *printer) pad(b []byte) { p.padString(string(b)) }

func (p *printer) padString(s string) {
	if !p.widOK || p.wid == 0 {
		p.put(s)
		return
	}
	w := p.wid - utf8.RuneCountInString(s)
	if !p.minus {
		p.writePadding(w)
		p.put(s)
	} else {
		p.put(s)
		p.writePadding(w)
	}
}

// ---- bools ----

func (p *printer) fmtBool(v bool, verb rune) {
	switch verb {
	case 't', 'v':
		if v {
			p.padString("true")
		} else {
			p.padString("false")
		}
	default:
		p.badVerb(verb, v)
	}
}

// ---- integers ----

func (p *printer) fmtInt(u uint64, signed bool, verb rune, arg any) {
	switch verb {
	case 'v', 'd':
		p.fmtInteger(u, 10, signed, verb, "0123456789abcdefx")
	case 'b':
		p.fmtInteger(u, 2, signed, verb, "0123456789abcdefx")
	case 'o':
		p.fmtInteger(u, 8, signed, verb, "0123456789abcdefx")
	case 'x':
		p.fmtInteger(u, 16, signed, verb, "0123456789abcdefx")
	case 'X':
		p.fmtInteger(u, 16, signed, verb, "0123456789ABCDEFX")
	case 'c', 'q':
		r := rune(u)
		if u > utf8.MaxRune {
			r = utf8.RuneError
		}
		var tmp [16]byte
		b := tmp[:0]
		switch {
		case verb == 'c':
			b = utf8.AppendRune(b, r)
		case p.plus:
			b = strconv.AppendQuoteRuneToASCII(b, r)
		default:
			b = strconv.AppendQuoteRune(b, r)
		}
		old := p.zero
		p.zero = false
		p.pad(b)
		p.zero = old
	default:
		p.badVerb(verb, arg)
	}
}

func (p *printer) fmtInteger(u uint64, base int, signed bool, verb rune, digits string) {
	negative := signed && int64(u) < 0
	if negative {
		u = -u
	}
	prec := 0
	if p.precOK {
		prec = p.prec
		if prec == 0 && u == 0 {
			old := p.zero
			p.zero = false
			p.writePadding(p.wid)
			p.zero = old
			return
		}
	} else if p.zero && p.widOK && !p.minus {
		prec = p.wid
		if negative || p.plus || p.space {
			prec-- // room for the sign
		}
	}
	var tmp [68]byte
	b := tmp[:0]
	for u >= uint64(base) {
		b = append(b, digits[u%uint64(base)])
		u /= uint64(base)
	}
	b = append(b, digits[u])
	for len(b) < prec {
		b = append(b, '0')
	}
	if p.sharp {
		switch base {
		case 2:
			b = append(b, 'b', '0')
		case 8:
			if b[len(b)-1] != '0' {
				b = append(b, '0')
			}
		case 16:
			b = append(b, digits[16], '0')
		}
	}
	switch {
	case negative:
		b = append(b, '-')
	case p.plus:
		b = append(b, '+')
	case p.space:
		b = append(b, ' ')
	}
	slices.Reverse(b)
	old := p.zero
	p.zero = false // zero padding was done above, as precision
	p.pad(b)
	p.zero = old
}

// ---- floats ----

func (p *printer) fmtFloat(v float64, size int, verb rune) {
	prec := -1
	switch verb {
	case 'v':
		verb = 'g'
	case 'g', 'G':
	case 'f', 'F', 'e', 'E':
		prec = 6
	default:
		p.badVerb(verb, floatArg(v, size))
		return
	}
	if verb == 'F' {
		verb = 'f'
	}
	if p.precOK {
		prec = p.prec
	}
	if p.sharp {
		p.unsupported(verb)
		return
	}
	var tmp [32]byte
	num := strconv.AppendFloat(tmp[:1], v, byte(verb), prec, size)
	if num[1] == '-' || num[1] == '+' {
		num = num[1:]
	} else {
		num[0] = '+'
	}
	if p.space && num[0] == '+' && !p.plus {
		num[0] = ' '
	}
	if num[1] == 'I' || num[1] == 'N' {
		old := p.zero
		p.zero = false
		if num[1] == 'N' && !p.space && !p.plus {
			num = num[1:]
		}
		p.pad(num)
		p.zero = old
		return
	}
	if p.plus || num[0] != '+' {
		if p.zero && !p.minus && p.widOK && p.wid > len(num) {
			p.putByte(num[0])
			p.writePadding(p.wid - len(num))
			p.put(string(num[1:]))
			return
		}
		p.pad(num)
		return
	}
	p.pad(num[1:])
}

func floatArg(v float64, size int) any {
	if size == 32 {
		return float32(v)
	}
	return v
}

// ---- text ----

// truncate cuts s to the precision, in runes.
func (p *printer) truncate(s string) string {
	if p.precOK {
		n := p.prec
		for i := range s {
			n--
			if n < 0 {
				return s[:i]
			}
		}
	}
	return s
}

func (p *printer) fmtS(s string) {
	p.padString(p.truncate(s))
}

func (p *printer) fmtString(s string, verb rune, arg any) {
	switch verb {
	case 'v', 's':
		if p.sharp && verb == 'v' {
			p.unsupported(verb)
			return
		}
		p.fmtS(s)
	case 'q':
		s = p.truncate(s)
		var tmp [64]byte
		var q []byte
		switch {
		case p.sharp && strconv.CanBackquote(s):
			q = append(append(append(tmp[:0], '`'), s...), '`')
		case p.plus:
			q = strconv.AppendQuoteToASCII(tmp[:0], s)
		default:
			q = strconv.AppendQuote(tmp[:0], s)
		}
		p.pad(q)
	case 'x':
		p.fmtHex(s, "0123456789abcdefx")
	case 'X':
		p.fmtHex(s, "0123456789ABCDEFX")
	default:
		p.badVerb(verb, arg)
	}
}

// fmtHex prints the bytes of s in hex (no flags but width and precision,
// which counts bytes).
func (p *printer) fmtHex(s string, digits string) {
	if p.precOK && p.prec < len(s) {
		s = s[:p.prec]
	}
	if p.sharp || p.space {
		p.unsupported(rune(digits[16]))
		return
	}
	b := make([]byte, 0, 2*len(s))
	for i := 0; i < len(s); i++ {
		b = append(b, digits[s[i]>>4], digits[s[i]&15])
	}
	old := p.zero
	p.zero = false
	p.pad(b)
	p.zero = old
}

func (p *printer) fmtBytes(v []byte, verb rune, arg any) {
	switch verb {
	case 'v', 'd':
		if p.sharp {
			p.unsupported(verb)
			return
		}
		p.putByte('[')
		for i, c := range v {
			if i > 0 {
				p.putByte(' ')
			}
			p.fmtInteger(uint64(c), 10, false, verb, "0123456789abcdefx")
		}
		p.putByte(']')
	case 's', 'q', 'x', 'X':
		p.fmtString(string(v), verb, arg)
	default:
		p.unsupported(verb)
	}
}
