package main

import "sort"

// StateBatch is kspec's StateBatch (Kafka's PersisterStateBatch): offsets
// [FirstOffset, LastOffset] sharing a delivery state and count.
type StateBatch struct {
	Type          string `json:"type"`
	FirstOffset   int64  `json:"first_offset"`
	LastOffset    int64  `json:"last_offset"`
	DeliveryState int64  `json:"delivery_state"`
	DeliveryCount int64  `json:"delivery_count"`
}

func batch(first, last, state, count int64) StateBatch {
	return StateBatch{"StateBatch", first, last, state, count}
}

// higher reports whether priority (count, state) a is above b
// (SHARE-RULE-COMBINE-PRIORITY: the delivery count first, then the state).
func higher(ac, as, bc, bs int64) bool {
	return ac > bc || (ac == bc && as > bs)
}

// prune drops batches below start and clips the one start cuts; -1 prunes
// nothing (SHARE-RULE-COMBINE-PRUNE, SHARE-RULE-COMBINE-CLIP).
func prune(start int64, batches []StateBatch) []StateBatch {
	out := []StateBatch{}
	for _, b := range batches {
		if start != -1 && b.LastOffset < start {
			continue
		}
		if start != -1 && b.FirstOffset < start {
			b = batch(start, b.LastOffset, b.DeliveryState, b.DeliveryCount)
		}
		out = append(out, b)
	}
	return out
}

// combine returns the per-offset highest-priority batch over current and new
// above start, as sorted maximal runs (kspec's combiner.combine). lowerWins
// inverts the overlap rule (the "lower-count-wins" mutant).
func combine(start int64, current, added []StateBatch, lowerWins bool) []StateBatch {
	all := append(append([]StateBatch{}, current...), added...)
	batches := prune(start, all)
	out := []StateBatch{}
	if len(batches) == 0 {
		return out
	}
	cutSet := map[int64]bool{}
	for _, b := range batches {
		cutSet[b.FirstOffset] = true
		cutSet[b.LastOffset+1] = true
	}
	cuts := make([]int64, 0, len(cutSet))
	for c := range cutSet {
		cuts = append(cuts, c)
	}
	sort.Slice(cuts, func(i, j int) bool { return cuts[i] < cuts[j] })
	for i := 0; i+1 < len(cuts); i++ {
		lo, hi := cuts[i], cuts[i+1]-1
		found := false
		var bc, bs int64
		for _, b := range batches {
			if b.FirstOffset <= lo && hi <= b.LastOffset {
				better := higher(b.DeliveryCount, b.DeliveryState, bc, bs)
				if lowerWins {
					better = higher(bc, bs, b.DeliveryCount, b.DeliveryState)
				}
				if !found || better {
					found, bc, bs = true, b.DeliveryCount, b.DeliveryState
				}
			}
		}
		if !found {
			continue
		}
		if n := len(out); n > 0 && out[n-1].LastOffset == lo-1 &&
			out[n-1].DeliveryCount == bc && out[n-1].DeliveryState == bs {
			out[n-1].LastOffset = hi
		} else {
			out = append(out, batch(lo, hi, bs, bc))
		}
	}
	return out
}
