package tsspec

import "math"

// DefaultChunkElements is the number of elements TensorStore aims for in
// an automatically chosen chunk (2^20; the documentation rounds it to "1
// million", and its examples — [101, 101, 101] for three large dimensions —
// need 2^20: 101³ = 1,030,301 is above 10⁶).
const DefaultChunkElements = 1 << 20

// ChooseChunkShape completes a chunk shape the way TensorStore's chunk
// layout does: dimensions with a size (non-zero entries of fixed; -1 means
// the full extent) keep it; the others get sizes proportional to aspect
// (0 or missing means 1), scaled by one common factor, each at most the
// dimension's extent (and the element target), so that the product is as
// large as possible without exceeding target (nor falling short when a
// larger factor cannot reach it). extent[d] < 0 means unbounded.
func ChooseChunkShape(extent []int64, fixed []int64, aspect []float64, target int64) []int64 {
	rank := len(extent)
	if target <= 0 {
		target = DefaultChunkElements
	}
	shape := make([]int64, rank)
	free := false
	for d := range shape {
		if d < len(fixed) {
			shape[d] = fixed[d]
		}
		if shape[d] == -1 {
			shape[d] = max(1, extent[d])
		}
		if shape[d] == 0 {
			free = true
		}
	}
	if !free {
		return shape
	}
	ratio := make([]float64, rank)
	limit := make([]float64, rank)
	for d := range ratio {
		ratio[d] = 1
		if d < len(aspect) && aspect[d] > 0 {
			ratio[d] = aspect[d]
		}
		limit[d] = float64(target)
		if extent[d] >= 0 {
			limit[d] = math.Min(limit[d], math.Max(1, float64(extent[d])))
		}
		limit[d] = math.Min(limit[d], 0x1p62)
	}
	size := func(d int, factor float64) int64 {
		if shape[d] != 0 {
			return shape[d]
		}
		return max(1, int64(math.Min(ratio[d]*factor, limit[d])))
	}
	total := func(factor float64) int64 {
		n := int64(1)
		for d := range shape {
			s := size(d, factor)
			if n > math.MaxInt64/s {
				return math.MaxInt64
			}
			n *= s
		}
		return n
	}
	// Search the factor between half the smallest step that changes a size
	// and twice the largest useful factor.
	step, hi := math.Inf(1), 0.0
	for d := range shape {
		if shape[d] != 0 {
			continue
		}
		step = math.Min(step, 1/ratio[d])
		hi = math.Max(hi, limit[d]/ratio[d])
	}
	step /= 2
	hi *= 2
	lo := step
	hiTotal := total(hi)
	for lo+step < hi {
		mid := lo + (hi-lo)/2
		n := total(mid)
		if n >= target {
			hi, hiTotal = mid, n
		}
		if n <= target {
			lo = mid
		}
	}
	factor := lo
	if hiTotal == target {
		factor = hi
	}
	for d := range shape {
		shape[d] = size(d, factor)
	}
	return shape
}
