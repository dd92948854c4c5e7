package zarr

import (
	"context"
	"sync"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/grid"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

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
	next := make(chan chunkTask)
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
