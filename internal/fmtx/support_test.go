package fmtx

import "strings"

// The table of what this package supports: kind of operand × verb × flags.
// fmt_test.go checks that every supported combination prints what fmt
// prints; callsites_test.go checks that every call site in the module uses
// only supported combinations.

// kinds of operands, as callsites_test.go classifies static types.
const (
	kInt      = "int"      // int, int8 ... int64
	kUint     = "uint"     // uint, uint8 ... uint64, uintptr
	kFloat    = "float"    // float32, float64
	kBool     = "bool"     // bool
	kString   = "string"   // string
	kBytes    = "bytes"    // []byte
	kError    = "error"    // a type with Error() string
	kStringer = "stringer" // a type with String() string (and no Error)
	kIntSlice = "intslice" // []int, []int64, []uint64
	kStrSlice = "strslice" // []string
	kAny      = "any"      // an interface without methods, []any, map[string]any: decoded JSON values
	kNil      = "nil"      // untyped nil
)

// directive is one parsed %-directive.
type directive struct {
	flags     string // the characters among "#0+- " given
	width     bool   // a width was given (digits or '*')
	prec      bool   // a precision was given (digits or '*')
	verb      rune
	starWidth bool
	starPrec  bool
}

// supported reports whether printing an operand of kind k with d is in the
// table (and so prints exactly what fmt prints).
func supported(k string, d directive, errorf bool) bool {
	has := func(allowed string) bool {
		for _, c := range d.flags {
			if !strings.ContainsRune(allowed, c) {
				return false
			}
		}
		return true
	}
	if d.verb == 'T' {
		// Type names: basic types and the dynamic values of interfaces.
		return d.flags == "" && !d.width && !d.prec && k != kError && k != kStringer
	}
	if d.verb == 'w' {
		return errorf && k == kError && d.flags == "" && !d.width && !d.prec
	}
	switch k {
	case kInt, kUint:
		switch d.verb {
		case 'd', 'x', 'X', 'o', 'b':
			return has("0+- #")
		case 'v':
			return has("0- ")
		case 'c':
			return has("-")
		case 'q':
			return has("-+#")
		}
	case kFloat:
		switch d.verb {
		case 'f', 'e', 'g', 'E', 'G', 'F':
			return has("0+- ")
		case 'v':
			return has("0- ")
		}
	case kBool:
		return (d.verb == 'v' || d.verb == 't') && has("-")
	case kString, kBytes, kError, kStringer:
		switch d.verb {
		case 'v', 's':
			return has("-")
		case 'q':
			return has("-+#")
		case 'x', 'X':
			return has("-") && (k == kString || k == kBytes)
		case 'd':
			return k == kBytes && d.flags == "" && !d.width && !d.prec
		}
	case kIntSlice:
		return (d.verb == 'v' || d.verb == 'd') && d.flags == "" && !d.width && !d.prec
	case kStrSlice:
		return (d.verb == 'v' || d.verb == 's' || d.verb == 'q') && d.flags == "" && !d.width && !d.prec
	case kAny:
		// Decoded JSON values (nil, bool, float64, string, json.Number,
		// []any, map[string]any) and whatever a caller put there.
		return (d.verb == 'v' || d.verb == 's' || d.verb == 'q') && d.flags == "" && !d.width && !d.prec
	case kNil:
		return d.verb == 'v' && d.flags == "" && !d.width && !d.prec
	}
	return false
}

// parseFormat splits a format into its directives ("%%" left out); ok is
// false for a format this package does not parse the way fmt does
// (argument indexes like %[1]d).
func parseFormat(format string) (ds []directive, ok bool) {
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		var d directive
		for ; i < len(format) && strings.IndexByte("#0+- ", format[i]) >= 0; i++ {
			if !strings.ContainsRune(d.flags, rune(format[i])) {
				d.flags += string(format[i])
			}
		}
		if i < len(format) && format[i] == '*' {
			d.width, d.starWidth = true, true
			i++
		} else {
			for ; i < len(format) && '0' <= format[i] && format[i] <= '9'; i++ {
				d.width = true
			}
		}
		if i < len(format) && format[i] == '.' {
			d.prec = true
			i++
			if i < len(format) && format[i] == '*' {
				d.starPrec = true
				i++
			} else {
				for ; i < len(format) && '0' <= format[i] && format[i] <= '9'; i++ {
				}
			}
		}
		if i >= len(format) || format[i] == '[' {
			return nil, false
		}
		if format[i] == '%' {
			continue
		}
		d.verb = rune(format[i])
		if d.verb >= 0x80 {
			return nil, false
		}
		ds = append(ds, d)
	}
	return ds, true
}
