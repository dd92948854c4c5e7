// Command zarr inspects Zarr hierarchies with the Go engine, with the same
// arguments and output as the npm package's zarr-wasm command (both print
// with internal/clitext):
//
//	zarr info <path-or-url> [node-path]            the hierarchy as a tree
//	zarr cat <array-path-or-url> [selection] [--all]   the values
//	zarr log <icechunk-repository>                   the ancestry of a version
//
// A location is a directory, an http(s) URL or an object-store location
// (s3://bucket/prefix, gs://bucket/prefix; both read through
// zarr/store/http), or a reference set (kerchunk / fsspec: a .json file, .json.gz, .json.zst,
// or a .parq/.parquet directory, local or a URL) followed by the path
// inside it (refs.json/temperature), a URL pipeline
// (https://host/data.zip|zip:path/in/zip|zarr3:group/array), or an Icechunk
// repository (zarr/icechunk: told by its files when the location holds no
// Zarr node; --branch, --tag or --snapshot choose the version, the branch
// main by default). A name that is not found is reported with the nearest
// existing one ("did you mean").
//
// Object stores take the AWS CLI's environment: AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN sign requests (without them
// they are anonymous), AWS_REGION (or AWS_DEFAULT_REGION) is the bucket's
// region, AWS_ENDPOINT_URL_S3 (or AWS_ENDPOINT_URL) an S3-compatible
// server's URL.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/internal/clitext"
	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/icechunk"
	"github.com/zarr-wasm/zarr-wasm/zarr/refs"
	"github.com/zarr-wasm/zarr-wasm/zarr/s3"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
	zhttp "github.com/zarr-wasm/zarr-wasm/zarr/store/http"
	"github.com/zarr-wasm/zarr-wasm/zarr/urlx"
)

const usage = `usage: zarr info <path-or-url> [node-path] [--branch B | --tag T | --snapshot ID]
       zarr cat <array-path-or-url> [selection] [--all] [--branch B | --tag T | --snapshot ID]
       zarr log <icechunk-repository> [--branch B | --tag T | --snapshot ID]

  info  prints the hierarchy as a tree with shape, dtype, chunks, codecs and attributes
  cat   prints the values of an array (selection like "0:10, ::2, -1"; --all: no summarising)
  log   prints an Icechunk version's ancestry, newest first: id, time, message

  A reference set (kerchunk JSON, .json; Parquet, .parq/.parquet directory)
  is opened as a store; a path inside it follows: refs.json/temperature.
  An Icechunk repository opens at the branch main, or the version given.

  Object stores: s3://bucket/prefix, gs://bucket/prefix, with the AWS CLI's
  environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
  AWS_REGION, AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL)`

// The command's words: a misspelt one is refused naming the nearest.
var (
	commands = []string{"info", "cat", "log"}
	flags    = []string{"--all", "--help", "--branch", "--tag", "--snapshot"}
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command: its exit status is 0, 1 for an error, 2 for a usage
// error.
func run(ctx context.Context, argv []string, stdout, stderr io.Writer) int {
	var args []string
	all := false
	var v icechunk.Version
	versioned := false
	bad := false
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		name, value, hasValue := strings.Cut(a, "=")
		var dst *string
		switch {
		case a == "--all":
			all = true
			continue
		case a == "-h" || a == "--help":
			fmt.Fprintln(stderr, usage)
			return 0
		case name == "--branch":
			dst = &v.Branch
		case name == "--tag":
			dst = &v.Tag
		case name == "--snapshot":
			dst = &v.Snapshot
		case strings.HasPrefix(a, "--"):
			// (one dash may start a selection: "-1", "-3:")
			fmt.Fprintf(stderr, "zarr: %s\n%s\n", errs.Unknown("flag", name, flags), usage)
			return 2
		default:
			args = append(args, a)
			continue
		}
		if !hasValue {
			if i+1 >= len(argv) {
				bad = true
				break
			}
			i++
			value = argv[i]
		}
		*dst, versioned = value, true
	}
	if len(args) > 0 && args[0] != "info" && args[0] != "cat" && args[0] != "log" {
		fmt.Fprintf(stderr, "zarr: %s\n%s\n", errs.Unknown("command", args[0], commands), usage)
		return 2
	}
	if bad || len(args) < 2 || len(args) > 3 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	cmd, location := args[0], args[1]
	third, haveThird := "", len(args) > 2
	if haveThird {
		third = args[2]
	}
	if err := command(ctx, cmd, location, third, haveThird, all, versionFlags{v, versioned}, stdout); err != nil {
		fmt.Fprintf(stderr, "zarr: %s\n", errorText(location, err))
		return 1
	}
	return 0
}

// versionFlags are --branch, --tag and --snapshot: given says whether any was.
type versionFlags struct {
	v     icechunk.Version
	given bool
}

func command(ctx context.Context, cmd, location, third string, haveThird, all bool, vf versionFlags, stdout io.Writer) error {
	var s zarr.Store
	var inner string
	var opts []zarr.OpenOption // a URL pipeline's zarr2: or zarr3:
	var err error
	if urlx.IsPipeline(location) {
		s, inner, opts, err = locatePipeline(ctx, location)
	} else {
		s, inner, err = locate(ctx, location)
	}
	if err != nil {
		return err
	}
	if vf.given || cmd == "log" {
		// an Icechunk repository, surely
		ic, path, err := openIcechunk(ctx, location, s, inner, vf.v)
		if err != nil {
			return openError{err}
		}
		if cmd == "log" {
			return printLog(ctx, ic, stdout)
		}
		s, inner = ic, path
	} else if cmd == "info" || cmd == "cat" {
		// a location that holds no Zarr node may be an Icechunk repository
		probe := inner
		if cmd == "info" && haveThird {
			probe = third
		}
		if _, err := zarr.Open(ctx, s, probe, opts...); errs.CodeOf(err) == errs.NotFound {
			if ic, path, ierr := openIcechunk(ctx, location, s, inner, vf.v); ierr == nil {
				s, inner = ic, path
			}
		}
	}
	if cmd == "info" {
		path := inner
		if haveThird {
			path = third
		}
		n, err := openNode(ctx, location, s, path, func(s zarr.Store, p string) (zarr.Node, error) { return zarr.Open(ctx, s, p, opts...) })
		if err != nil {
			return openError{err}
		}
		name := third
		if name == "" {
			parts := strings.Split(strings.TrimRight(location, "/"), "/")
			name = parts[len(parts)-1]
			if name == "" {
				name = location
			}
		}
		fmt.Fprintln(stdout, clitext.Tree(ctx, n, name))
		return nil
	}
	n, err := openNode(ctx, location, s, inner, func(s zarr.Store, p string) (zarr.Node, error) { return zarr.OpenArray(ctx, s, p, opts...) })
	if err != nil {
		return openError{err}
	}
	text, err := clitext.Cat(ctx, n.(*zarr.Array), third, all)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, text)
	return nil
}

// openIcechunk opens the Icechunk repository at s (inner: the path of the
// node inside it), or, for an http(s) location, at an ancestor of the URL
// (the rest of the URL is then the node's path).
func openIcechunk(ctx context.Context, location string, s zarr.Store, inner string, v icechunk.Version) (*icechunk.Store, string, error) {
	ic, err := icechunk.Open(ctx, s, v, icechunkOptions())
	if err == nil || !isHTTP(location) || urlx.IsPipeline(location) || !notARepository(err) {
		return ic, inner, err
	}
	u, perr := url.Parse(location)
	if perr != nil {
		return nil, "", err
	}
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	for i := len(segs) - 1; i >= 0 && len(segs)-i <= maxAncestors; i-- {
		base := *u
		base.Path = "/" + strings.Join(segs[:i], "/")
		as, serr := zhttp.NewStore(base.String(), envOptions())
		if serr != nil {
			break
		}
		ic, aerr := icechunk.Open(ctx, as, v, icechunkOptions())
		if aerr == nil || !notARepository(aerr) {
			rest := strings.Trim(strings.Join(append(append([]string(nil), segs[i:]...), inner), "/"), "/")
			return ic, rest, aerr
		}
	}
	return nil, "", err
}

// notARepository: the error of a store without an Icechunk repository.
func notARepository(err error) bool {
	return errs.CodeOf(err) == errs.NotFound && strings.Contains(err.Error(), "no Icechunk repository")
}

// icechunkOptions: virtual chunks are not read by the command (no prefix
// is allowed); inline and native chunks are.
func icechunkOptions() icechunk.Options { return icechunk.Options{} }

// printLog prints the ancestry, newest first.
func printLog(ctx context.Context, ic *icechunk.Store, stdout io.Writer) error {
	list, err := ic.Ancestry(ctx)
	if err != nil {
		return err
	}
	if len(list) > 0 {
		fmt.Fprintln(stdout, clitext.Log(list))
	}
	return nil
}

// openError is an error opening the location's node: its message names
// the location.
type openError struct{ err error }

func (e openError) Error() string { return e.err.Error() }
func (e openError) Unwrap() error { return e.err }

// errorText is "CODE: message" (with the location before the message when
// the node could not be opened), as the npm command prints it.
func errorText(location string, err error) string {
	where := ""
	if _, ok := err.(openError); ok {
		where = location + ": "
	}
	var e *errs.Error
	if errors.As(err, &e) {
		return fmt.Sprintf("%s: %s%s", e.Code, where, strings.TrimPrefix(e.Error(), string(e.Code)+": "))
	}
	return where + err.Error()
}

var refsPath = regexp.MustCompile(`(?i)^(.*?\.(?:json(?:\.gz|\.zst)?|parq|parquet))(?:/+(.*))?$`)

var scheme = regexp.MustCompile(`(?i)^[a-z][a-z0-9+.-]*://`)

// locate makes the store a location names, and the path inside it (a
// reference set's node, or the part of a local path that does not exist).
func locate(ctx context.Context, location string) (zarr.Store, string, error) {
	if m := refsPath.FindStringSubmatch(location); m != nil {
		u := m[1]
		if !scheme.MatchString(u) {
			abs, err := filepath.Abs(u)
			if err != nil {
				return nil, "", err
			}
			u = (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
		}
		root, err := zarr.NewDirectoryStore("/")
		if err != nil {
			return nil, "", err
		}
		s, err := refs.FromURL(ctx, u, refs.Options{Fetcher: fetcher{zhttp.NewFetcher(envOptions()), refs.StoreFetcher{Prefix: "file:///", Store: root}}})
		if err != nil {
			return nil, "", err
		}
		return s, m[2], nil
	}
	if scheme.MatchString(location) && !strings.HasPrefix(strings.ToLower(location), "file://") {
		// http(s), s3:// and gs://; another scheme is refused with the
		// near one named
		s, err := zhttp.NewStore(location, envOptions())
		return s, "", err
	}
	// A path that does not exist (a typo in the array's name, say) opens the
	// nearest directory that does, with the rest as the path inside, so the
	// engine can name what is there.
	base, err := filepath.Abs(location)
	if err != nil {
		return nil, "", err
	}
	var rest []string
	for !isDir(base) && filepath.Dir(base) != base {
		rest = append([]string{filepath.Base(base)}, rest...)
		base = filepath.Dir(base)
	}
	if len(rest) == 0 {
		base = location
	}
	s, err := zarr.NewDirectoryStore(base)
	return s, strings.Join(rest, "/"), err
}

// envOptions are the HTTP store's options from the AWS CLI's environment
// variables (see the package comment).
func envOptions() zhttp.Options {
	opt := zhttp.Options{Region: os.Getenv("AWS_REGION"), Endpoint: os.Getenv("AWS_ENDPOINT_URL_S3")}
	if opt.Region == "" {
		opt.Region = os.Getenv("AWS_DEFAULT_REGION")
	}
	if opt.Endpoint == "" {
		opt.Endpoint = os.Getenv("AWS_ENDPOINT_URL")
	}
	if id, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"); id != "" && secret != "" {
		opt.Credentials = zhttp.StaticCredentials(s3.Credentials{AccessKeyID: id, SecretAccessKey: secret, SessionToken: os.Getenv("AWS_SESSION_TOKEN")})
	}
	return opt
}

func isHTTP(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// fetcher reads reference targets: http(s) URLs over the network, file
// URLs from the local file system.
type fetcher struct {
	web  *zhttp.Fetcher
	file refs.StoreFetcher
}

func (f fetcher) Fetch(ctx context.Context, u string, r store.ByteRange) ([]byte, bool, error) {
	if strings.HasPrefix(u, "file://") {
		return f.file.Fetch(ctx, u, r)
	}
	return f.web.Fetch(ctx, u, r)
}

// maxAncestors bounds how far up an http(s) URL openNode looks for the
// hierarchy that can name a mistyped node.
const maxAncestors = 8

// openNode opens path in s. Where an http(s) location names nothing, it
// tries the URL's ancestors as the store with the rest as the path: a
// hierarchy root with consolidated metadata then names what is there.
func openNode(ctx context.Context, location string, s zarr.Store, path string, open func(zarr.Store, string) (zarr.Node, error)) (zarr.Node, error) {
	n, err := open(s, path)
	if err == nil || errs.CodeOf(err) != errs.NotFound || !isHTTP(location) || refsPath.MatchString(location) {
		return n, err
	}
	var suggested *errs.Error
	if errors.As(err, &suggested) && suggested.Suggest != "" {
		return nil, err
	}
	u, perr := url.Parse(location)
	if perr != nil {
		return nil, err
	}
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	for i := len(segs) - 1; i >= 0 && len(segs)-i <= maxAncestors; i-- {
		base := *u
		base.Path = "/" + strings.Join(segs[:i], "/")
		rest := strings.Join(append(append([]string(nil), segs[i:]...), strings.Split(path, "/")...), "/")
		as, serr := zhttp.NewStore(base.String(), envOptions())
		if serr != nil {
			break
		}
		_, aerr := open(as, strings.Trim(rest, "/"))
		var e *errs.Error
		if errors.As(aerr, &e) && e.Code == errs.NotFound && e.Suggest != "" {
			return nil, aerr
		}
	}
	return nil, err
}
