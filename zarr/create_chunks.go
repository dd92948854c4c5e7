// The chunk shape of a new array when none is given.

package zarr

import "math"

// GuessChunks picks a chunk shape the way zarr-python does: halve
// dimensions in turn until a chunk is near a size target that grows with
// the array (128 KiB to 64 MiB).
func GuessChunks(shape []int, itemsize int) []int {
	const base, minSize, maxSize = 256 * 1024, 128 * 1024, 64 * 1024 * 1024
	n := len(shape)
	if n == 0 {
		return []int{}
	}
	chunks := make([]float64, n)
	for i, s := range shape {
		chunks[i] = math.Max(float64(s), 1)
	}
	prod := func() float64 {
		p := 1.0
		for _, c := range chunks {
			p *= c
		}
		return p
	}
	dsetSize := prod() * float64(itemsize)
	target := base * math.Pow(2, math.Log10(dsetSize/(1024*1024)))
	target = math.Min(math.Max(target, minSize), maxSize)
	for idx := 0; ; idx++ {
		size := prod() * float64(itemsize)
		if (size < target || math.Abs(size-target)/target < 0.5) && size < maxSize {
			break
		}
		if prod() == 1 {
			break
		}
		chunks[idx%n] = math.Ceil(chunks[idx%n] / 2)
	}
	out := make([]int, n)
	for i, c := range chunks {
		out[i] = int(c)
	}
	return out
}
