package s3

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
)

// The XML S3 answers with is simple: elements and text, no attributes
// that matter (xmlns), no mixed content, no DTD. xmlWalk reads just that
// (encoding/xml would bring reflect into the WebAssembly build), and
// refuses what it does not know rather than guess.

// maxXMLDepth bounds the nesting of elements.
const maxXMLDepth = 16

// xmlWalk calls leaf(path, text) for each element without child elements,
// path being the local names from the root to it. A truncated or
// malformed document is an error that says where.
func xmlWalk(doc []byte, leaf func(path []string, text string) error) error {
	s := string(doc)
	var stack []string
	var text strings.Builder
	hasChild := false
	rootDone := false
	i := 0
	bad := func(format string, args ...any) error {
		return fmtx.Errorf("malformed XML at byte %d: %s", i, fmtx.Sprintf(format, args...))
	}
	for i < len(s) {
		lt := strings.IndexByte(s[i:], '<')
		if lt < 0 {
			if strings.TrimSpace(s[i:]) != "" && (len(stack) > 0 || rootDone) {
				if len(stack) > 0 {
					return bad("the document ends inside <%s> (truncated)", stack[len(stack)-1])
				}
				return bad("text after the root element")
			}
			i = len(s)
			break
		}
		if chunk := s[i : i+lt]; chunk != "" {
			if len(stack) == 0 {
				if strings.TrimSpace(chunk) != "" {
					return bad("text outside the root element")
				}
			} else if err := decodeText(&text, chunk); err != nil {
				i += lt
				return bad("%v", err)
			}
		}
		i += lt
		rest := s[i:]
		switch {
		case strings.HasPrefix(rest, "<?"):
			end := strings.Index(rest, "?>")
			if end < 0 {
				return bad("unterminated processing instruction (truncated)")
			}
			i += end + 2
		case strings.HasPrefix(rest, "<!--"):
			end := strings.Index(rest[4:], "-->")
			if end < 0 {
				return bad("unterminated comment (truncated)")
			}
			i += 4 + end + 3
		case strings.HasPrefix(rest, "<![CDATA["):
			end := strings.Index(rest[9:], "]]>")
			if end < 0 {
				return bad("unterminated CDATA section (truncated)")
			}
			if len(stack) == 0 {
				return bad("CDATA outside the root element")
			}
			text.WriteString(rest[9 : 9+end])
			i += 9 + end + 3
		case strings.HasPrefix(rest, "<!"):
			return bad("a document type declaration (not accepted)")
		case strings.HasPrefix(rest, "</"):
			end := strings.IndexByte(rest, '>')
			if end < 0 {
				return bad("unterminated end tag (truncated)")
			}
			name := localName(strings.TrimSpace(rest[2:end]))
			if len(stack) == 0 || stack[len(stack)-1] != name {
				return bad("</%s> does not close the open element", name)
			}
			if !hasChild {
				if err := leaf(stack, text.String()); err != nil {
					return err
				}
			}
			text.Reset()
			stack = stack[:len(stack)-1]
			hasChild = true
			if len(stack) == 0 {
				rootDone = true
			}
			i += end + 1
		default:
			end := strings.IndexByte(rest, '>')
			if end < 0 {
				return bad("unterminated start tag (truncated)")
			}
			tag := rest[1:end]
			selfClosing := strings.HasSuffix(tag, "/")
			tag = strings.TrimSuffix(tag, "/")
			name := tag
			if j := strings.IndexAny(tag, " \t\r\n"); j >= 0 {
				name = tag[:j]
			}
			name = localName(name)
			if name == "" || strings.ContainsAny(name, "<&\"'=") {
				return bad("bad element name %q", name)
			}
			if rootDone {
				return bad("a second root element <%s>", name)
			}
			if len(stack) > 0 && strings.TrimSpace(text.String()) != "" {
				return bad("text mixed with elements in <%s>", stack[len(stack)-1])
			}
			if len(stack) >= maxXMLDepth {
				return bad("elements nested deeper than %d", maxXMLDepth)
			}
			text.Reset()
			stack = append(stack, name)
			hasChild = false
			if selfClosing {
				if err := leaf(stack, ""); err != nil {
					return err
				}
				stack = stack[:len(stack)-1]
				hasChild = true
				if len(stack) == 0 {
					rootDone = true
				}
			}
			i += end + 1
		}
	}
	if len(stack) > 0 {
		return bad("the document ends inside <%s> (truncated)", stack[len(stack)-1])
	}
	if !rootDone {
		return bad("no root element")
	}
	return nil
}

// localName drops a namespace prefix ("s3:Key" → "Key").
func localName(n string) string {
	if j := strings.IndexByte(n, ':'); j >= 0 {
		return n[j+1:]
	}
	return n
}

// decodeText appends text with its character and entity references
// decoded.
func decodeText(b *strings.Builder, t string) error {
	for {
		amp := strings.IndexByte(t, '&')
		if amp < 0 {
			b.WriteString(t)
			return nil
		}
		b.WriteString(t[:amp])
		t = t[amp:]
		semi := strings.IndexByte(t, ';')
		if semi < 0 || semi > 12 {
			return fmtx.Errorf("an unterminated entity reference")
		}
		ref := t[1:semi]
		switch ref {
		case "amp":
			b.WriteByte('&')
		case "lt":
			b.WriteByte('<')
		case "gt":
			b.WriteByte('>')
		case "quot":
			b.WriteByte('"')
		case "apos":
			b.WriteByte('\'')
		default:
			var n uint64
			var err error
			switch {
			case strings.HasPrefix(ref, "#x"):
				n, err = strconv.ParseUint(ref[2:], 16, 32)
			case strings.HasPrefix(ref, "#"):
				n, err = strconv.ParseUint(ref[1:], 10, 32)
			default:
				return fmtx.Errorf("an unknown entity &%s;", ref)
			}
			if err != nil || n > utf8.MaxRune {
				return fmtx.Errorf("a bad character reference &%s;", ref)
			}
			b.WriteRune(rune(n))
		}
		t = t[semi+1:]
	}
}
