// Command crossvet runs go vet's analyzers on packages type-checked from
// source, for the GOOS and GOARCH of its environment:
//
//	GOOS=windows GOARCH=arm64 CGO_ENABLED=0 crossvet ./...
//	crossvet -targets darwin/arm64,windows/amd64 ./...
//
// go vet compiles every dependency, the standard library included, to export
// data before it checks a package, once per target: six targets cold take
// many minutes on two cores. crossvet parses and type-checks the same
// packages (tests included) without compiling anything, which catches what a
// cross-compile catches (a syscall.Kill that Windows lacks, a missing build
// tag) and what go vet reports, in seconds per target. make test-cross runs
// it for every release target.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"golang.org/x/tools/go/analysis/passes/appends"
	"golang.org/x/tools/go/analysis/passes/asmdecl"
	"golang.org/x/tools/go/analysis/passes/assign"
	"golang.org/x/tools/go/analysis/passes/atomic"
	"golang.org/x/tools/go/analysis/passes/bools"
	"golang.org/x/tools/go/analysis/passes/buildtag"
	"golang.org/x/tools/go/analysis/passes/cgocall"
	"golang.org/x/tools/go/analysis/passes/composite"
	"golang.org/x/tools/go/analysis/passes/copylock"
	"golang.org/x/tools/go/analysis/passes/defers"
	"golang.org/x/tools/go/analysis/passes/directive"
	"golang.org/x/tools/go/analysis/passes/errorsas"
	"golang.org/x/tools/go/analysis/passes/framepointer"
	"golang.org/x/tools/go/analysis/passes/hostport"
	"golang.org/x/tools/go/analysis/passes/httpresponse"
	"golang.org/x/tools/go/analysis/passes/ifaceassert"
	"golang.org/x/tools/go/analysis/passes/loopclosure"
	"golang.org/x/tools/go/analysis/passes/lostcancel"
	"golang.org/x/tools/go/analysis/passes/nilfunc"
	"golang.org/x/tools/go/analysis/passes/printf"
	"golang.org/x/tools/go/analysis/passes/shift"
	"golang.org/x/tools/go/analysis/passes/sigchanyzer"
	"golang.org/x/tools/go/analysis/passes/slog"
	"golang.org/x/tools/go/analysis/passes/stdmethods"
	"golang.org/x/tools/go/analysis/passes/stdversion"
	"golang.org/x/tools/go/analysis/passes/stringintconv"
	"golang.org/x/tools/go/analysis/passes/structtag"
	"golang.org/x/tools/go/analysis/passes/testinggoroutine"
	"golang.org/x/tools/go/analysis/passes/tests"
	"golang.org/x/tools/go/analysis/passes/timeformat"
	"golang.org/x/tools/go/analysis/passes/unmarshal"
	"golang.org/x/tools/go/analysis/passes/unreachable"
	"golang.org/x/tools/go/analysis/passes/unsafeptr"
	"golang.org/x/tools/go/analysis/passes/unusedresult"
	"golang.org/x/tools/go/analysis/passes/waitgroup"
)

// analyzers are those of cmd/vet (Go 1.26), in its order.
var analyzers = []*analysis.Analyzer{
	appends.Analyzer,
	asmdecl.Analyzer,
	assign.Analyzer,
	atomic.Analyzer,
	bools.Analyzer,
	buildtag.Analyzer,
	cgocall.Analyzer,
	composite.Analyzer,
	copylock.Analyzer,
	defers.Analyzer,
	directive.Analyzer,
	errorsas.Analyzer,
	framepointer.Analyzer,
	hostport.Analyzer,
	httpresponse.Analyzer,
	ifaceassert.Analyzer,
	loopclosure.Analyzer,
	lostcancel.Analyzer,
	nilfunc.Analyzer,
	printf.Analyzer,
	shift.Analyzer,
	sigchanyzer.Analyzer,
	slog.Analyzer,
	stdmethods.Analyzer,
	stdversion.Analyzer,
	stringintconv.Analyzer,
	structtag.Analyzer,
	testinggoroutine.Analyzer,
	tests.Analyzer,
	timeformat.Analyzer,
	unmarshal.Analyzer,
	unreachable.Analyzer,
	unsafeptr.Analyzer,
	unusedresult.Analyzer,
	waitgroup.Analyzer,
}

func main() {
	targets := flag.String("targets", "", "comma-separated GOOS/GOARCH `list` to check for (default: the environment's GOOS and GOARCH)")
	flag.Parse()
	c := newCrossvet()
	status := 0
	for _, t := range strings.Split(*targets, ",") {
		var env []string
		if t != "" {
			goos, goarch, ok := strings.Cut(t, "/")
			if !ok {
				fmt.Fprintf(os.Stderr, "crossvet: target %q: want GOOS/GOARCH\n", t)
				os.Exit(2)
			}
			env = []string{"GOOS=" + goos, "GOARCH=" + goarch, "CGO_ENABLED=0"}
			fmt.Fprintf(os.Stderr, "crossvet: %s\n", t)
		}
		status = max(status, c.run(env, flag.Args()))
	}
	os.Exit(status)
}

// crossvet checks one module for one target after another, parsing each
// file once for all of them: most files build for every target.
type crossvet struct {
	fset   *token.FileSet
	parsed sync.Map // file name → *parsed
}

type parsed struct {
	once sync.Once
	f    *ast.File
	err  error
}

func newCrossvet() *crossvet { return &crossvet{fset: token.NewFileSet()} }

// run loads patterns (tests included) from the module in the working
// directory, with env added to the environment (GOOS, GOARCH), type-checks
// them and applies the analyzers. It returns 1 for load or type errors, 3
// for diagnostics (as go vet), 0 otherwise.
func (c *crossvet) run(env, patterns []string) int {
	root, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, "crossvet:", err)
		return 1
	}
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Tests: true, Fset: c.fset,
		Env: append(os.Environ(), env...), ParseFile: c.parseFile(root)}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "crossvet:", err)
		return 1
	}
	packages.Visit(pkgs, nil, func(p *packages.Package) { // dependencies first
		if !inside(root, p) {
			p.Errors = withoutUnusedImports(p.Errors)
		}
		p.IllTyped = len(p.Errors) > 0
		for _, imp := range p.Imports {
			p.IllTyped = p.IllTyped || imp.IllTyped
		}
	})
	if packages.PrintErrors(pkgs) > 0 {
		return 1
	}
	graph, err := checker.Analyze(analyzers, pkgs, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "crossvet:", err)
		return 1
	}
	if err := graph.PrintText(os.Stderr, -1); err != nil {
		fmt.Fprintln(os.Stderr, "crossvet:", err)
		return 1
	}
	for act := range graph.All() {
		if act.IsRoot && len(act.Diagnostics) > 0 {
			return 3
		}
	}
	return 0
}

// parseFile parses the files under root whole and, elsewhere (the standard
// library, the module cache), keeps declarations but drops comments and the
// bodies of plain functions: what a dependency exports is all that checking
// root's packages needs, and its bodies are most of the type-checking time.
// A file is parsed once; later targets share its syntax tree, which neither
// the type checker nor the analyzers change.
func (c *crossvet) parseFile(root string) func(*token.FileSet, string, []byte) (*ast.File, error) {
	return func(fset *token.FileSet, name string, src []byte) (*ast.File, error) {
		v, _ := c.parsed.LoadOrStore(name, new(parsed))
		p := v.(*parsed)
		p.once.Do(func() { p.f, p.err = parse(fset, root, name, src) })
		return p.f, p.err
	}
}

func parse(fset *token.FileSet, root, name string, src []byte) (*ast.File, error) {
	if under(root, name) {
		return parser.ParseFile(fset, name, src, parser.AllErrors|parser.ParseComments)
	}
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if f == nil {
		return nil, err
	}
	for _, d := range f.Decls {
		// init and generic functions must keep a body to type-check.
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name != "init" && fn.Type.TypeParams == nil {
			fn.Body = nil
		}
	}
	return f, err
}

// unusedImport is go/types' message for an import nothing uses (packages.Error
// carries no error code to test instead).
var unusedImport = regexp.MustCompile(`^"[^"]+" imported (as \w+ )?and not used$`)

// withoutUnusedImports drops the errors that stripping bodies causes in a
// dependency (an import only its bodies used); any other error stays.
func withoutUnusedImports(errs []packages.Error) []packages.Error {
	var kept []packages.Error
	for _, e := range errs {
		if e.Kind == packages.TypeError && unusedImport.MatchString(e.Msg) {
			continue
		}
		kept = append(kept, e)
	}
	return kept
}

// inside reports whether p's files are under root.
func inside(root string, p *packages.Package) bool {
	return len(p.GoFiles) > 0 && under(root, p.GoFiles[0])
}

func under(root, name string) bool {
	rel, err := filepath.Rel(root, name)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
