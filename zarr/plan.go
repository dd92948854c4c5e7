package zarr

import (
	"context"
	"sync"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/grid"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// ReadPlan is a read of a selection, planned: the result's shapes and the
// chunks it touches, each with the region read from it and where that
// lands in the result. Read runs it in the engine (runPlan); a host that
// reads outside the engine (package zarr/hostread: the npm package's
// reads of JS stores) builds its own plan from it, so both read the same
// chunks for the same selection.
type ReadPlan struct {
	// FullShape is the result with every dimension (an integer index is a
	// dimension of 1); Shape is the result's shape.
	FullShape, Shape []int
	// Chunks are the chunks to read, in C order of their grid coordinates.
	Chunks []PlannedChunk
	// Fill is one element of the fill value when a fresh (zeroed) result
	// does not already hold it, else nil.
	Fill []byte
}

// PlannedChunk is one chunk of a ReadPlan: its grid coordinates, store key
// and (decoded) shape, the region In read from it and the region Out of
// the result it lands in.
type PlannedChunk struct {
	Index   []int
	Key     string
	Shape   []int
	In, Out []nd.Range
}

// PlanRead plans a read of sel from the stored array (whatever view a spec
// gives it: see IsView). Errors are Read's for sel: a bad selection, a
// result over the memory budget.
func (a *Array) PlanRead(sel Selection) (*ReadPlan, error) {
	r, err := sel.resolve(a.meta.Shape)
	if err != nil {
		return nil, err
	}
	full := r.fullShape()
	if err := checkResultSize(a.meta.DType, full); err != nil {
		return nil, err
	}
	p := &ReadPlan{FullShape: full, Shape: r.outShape()}
	if needsFill(a.meta.DType, a.meta.Fill) {
		f := a.meta.Fill.Bytes
		if len(f) > a.meta.DType.Size {
			f = f[:a.meta.DType.Size]
		}
		p.Fill = append([]byte(nil), f...)
	}
	tasks := plan(a.meta.Grid, r)
	p.Chunks = make([]PlannedChunk, len(tasks))
	for i, t := range tasks {
		p.Chunks[i] = PlannedChunk{Index: t.idx, Key: a.ChunkKey(t.idx), Shape: a.meta.Grid.ChunkShape(t.idx), In: t.in, Out: t.out}
	}
	return p, nil
}

// runPlan reads the chunks of p into d, a.Concurrency of them at a time.
func (a *Array) runPlan(ctx context.Context, p *ReadPlan, d Dest) error {
	return runEach(ctx, p.Chunks, a.Concurrency, func(ctx context.Context, c PlannedChunk) error {
		return a.readRegion(ctx, d, c)
	})
}

// ChunkFits reports whether decoding a chunk of shape (stored at key)
// fits the memory budget, as the engine checks before it reads one: nil,
// or the error its read would return.
func (a *Array) ChunkFits(key string, shape []int) error {
	return a.checkChunkWork(key, shape, decodeCopies)
}

// chunkTask is one chunk a selection touches, with the region inside the
// chunk and the matching region of the result.
type chunkTask struct {
	idx     []int
	in, out []nd.Range
}

// plan lists the chunks a resolved selection touches.
func plan(g grid.Grid, r resolved) []chunkTask {
	ndim := len(r.ranges)
	per := make([][]grid.Piece, ndim)
	total := 1
	for i := range r.ranges {
		per[i] = grid.Pieces(g[i], r.ranges[i])
		total *= len(per[i])
	}
	if total == 0 {
		return nil
	}
	tasks := make([]chunkTask, 0, total)
	pos := make([]int, ndim)
	for {
		t := chunkTask{idx: make([]int, ndim), in: make([]nd.Range, ndim), out: make([]nd.Range, ndim)}
		for i, p := range pos {
			pc := per[i][p]
			t.idx[i], t.in[i], t.out[i] = pc.Chunk, pc.In, pc.Out
		}
		tasks = append(tasks, t)
		k := ndim - 1
		for ; k >= 0; k-- {
			pos[k]++
			if pos[k] < len(per[k]) {
				break
			}
			pos[k] = 0
		}
		if k < 0 {
			return tasks
		}
	}
}

// DefaultConcurrency bounds how many chunks one call fetches and decodes at
// once.
const DefaultConcurrency = 16

// runTasks runs fn over tasks with at most limit in flight, stopping at the
// first error or when ctx ends.
func runTasks(ctx context.Context, tasks []chunkTask, limit int, fn func(context.Context, chunkTask) error) error {
	return runEach(ctx, tasks, limit, fn)
}

// runEach runs fn over items with at most limit in flight, stopping at the
// first error or when ctx ends.
func runEach[T any](ctx context.Context, tasks []T, limit int, fn func(context.Context, T) error) error {
	if limit < 1 {
		limit = 1
	}
	if len(tasks) == 1 || limit == 1 {
		for _, t := range tasks {
			if err := ctx.Err(); err != nil {
				return errs.Wrap(errs.Aborted, "", err, "aborted")
			}
			if err := fn(ctx, t); err != nil {
				return err
			}
		}
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	next := make(chan T)
	for w := 0; w < min(limit, len(tasks)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range next {
				if err := fn(ctx, t); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					cancel()
				}
			}
		}()
	}
	for _, t := range tasks {
		select {
		case next <- t:
			continue
		case <-ctx.Done():
		}
		break
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if err := ctx.Err(); err != nil {
		return errs.Wrap(errs.Aborted, "", err, "aborted")
	}
	return nil
}
