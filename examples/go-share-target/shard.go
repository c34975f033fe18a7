package main

// The share coordinator shard: a port of kspec.model.share.shard (Kafka's
// ShareCoordinatorShard). Handlers compute the records to append and the
// response; the records are then applied through replay, as the coordinator
// runtime does, so the kept state is the state a fresh shard rebuilds from the
// log (SHARE-INV-REPLAY-EQUALS-HANDLERS).
//
// It implements one release, Kafka 4.3 (spec/share.md, "Versions"): a key must
// be initialized before it is written or read (SHARE-VER-UNINITIALIZED-REFUSED),
// a write's record keeps the stored epochs and only a read records a new leader
// epoch (SHARE-VER-WRITE-KEEPS-EPOCHS), the update count starts at 1
// (SHARE-VER-UPDATE-COUNT-FROM-ONE), and a read with leader epoch -1 is not
// fenced (SHARE-VER-READ-FENCE-UNSET).

import (
	"encoding/json"
	"fmt"
)

// kafkaVersion is the release whose rules this shard follows.
const kafkaVersion = "4.3"

// sameRules are the releases whose share coordinator rules are 4.3's (one rule set in the
// model: 4.1 to 4.3; the conformance driver names a rule set by its first release).
var sameRules = []string{"4.1", "4.2", "4.3"}

const (
	notSet              = -1
	defaultStateEpoch   = 0
	defaultLeaderEpoch  = 0 // PartitionFactory.DEFAULT_LEADER_EPOCH
	errNone             = "NONE"
	errInvalidRequest   = "INVALID_REQUEST"
	errFencedLeader     = "FENCED_LEADER_EPOCH"
	errFencedState      = "FENCED_STATE_EPOCH"
	errUnknownTopic     = "UNKNOWN_TOPIC_OR_PARTITION"
	errNotAvailable     = "COORDINATOR_NOT_AVAILABLE"
	msgNullTopic        = "The topic id cannot be null."
	msgNegativePart     = "The partition id cannot be a negative number."
	msgWriteUninit      = "Write operation on uninitialized share partition not allowed."
	msgReadUninit       = "Read operation on uninitialized share partition not allowed."
	msgFencedLeader     = "The leader epoch in the request is older than the epoch on the broker."
	msgFencedState      = "The share coordinator rejected the request because the share-group state epoch did not match."
	msgUnknownTopic     = "This server does not host this topic-partition."
	msgNotAvailable     = "The coordinator is not available."
	defaultSnapshotEach = 500
)

// Key is SharePartitionKey.
type Key struct {
	Type      string `json:"type"`
	GroupID   string `json:"group_id"`
	TopicID   string `json:"topic_id"`
	Partition int64  `json:"partition"`
}

func (k Key) coordinatorKey() string {
	return fmt.Sprintf("%s:%s:%d", k.GroupID, k.TopicID, k.Partition)
}

// Record is one of ShareSnapshot, ShareUpdate, ShareTombstone; Type says which.
// A tombstone has only Key; an update has no StateEpoch (omitted on the wire).
type Record struct {
	Type          string       `json:"type"`
	Key           Key          `json:"key"`
	SnapshotEpoch *int64       `json:"snapshot_epoch,omitempty"`
	StateEpoch    *int64       `json:"state_epoch,omitempty"`
	LeaderEpoch   *int64       `json:"leader_epoch,omitempty"`
	StartOffset   *int64       `json:"start_offset,omitempty"`
	StateBatches  []StateBatch `json:"state_batches,omitempty"`
	// KIP-1226 (Kafka 4.2+): the delivery-complete count, -1 unknown (absent reads as -1).
	DeliveryCompleteCount *int64 `json:"delivery_complete_count,omitempty"`
}

func countOf(r Record) int64 {
	if r.DeliveryCompleteCount == nil {
		return notSet
	}
	return *r.DeliveryCompleteCount
}

// MarshalJSON writes exactly the fields of the record's class (an empty batch
// list included, which omitempty would drop).
func (r Record) MarshalJSON() ([]byte, error) {
	switch r.Type {
	case "ShareTombstone":
		return json.Marshal(struct {
			Type string `json:"type"`
			Key  Key    `json:"key"`
		}{r.Type, r.Key})
	case "ShareUpdate":
		return json.Marshal(struct {
			Type          string       `json:"type"`
			Key           Key          `json:"key"`
			SnapshotEpoch int64        `json:"snapshot_epoch"`
			LeaderEpoch   int64        `json:"leader_epoch"`
			StartOffset   int64        `json:"start_offset"`
			StateBatches  []StateBatch `json:"state_batches"`
			Count         int64        `json:"delivery_complete_count"`
		}{r.Type, r.Key, *r.SnapshotEpoch, *r.LeaderEpoch, *r.StartOffset, nonNil(r.StateBatches), countOf(r)})
	}
	return json.Marshal(struct {
		Type          string       `json:"type"`
		Key           Key          `json:"key"`
		SnapshotEpoch int64        `json:"snapshot_epoch"`
		StateEpoch    int64        `json:"state_epoch"`
		LeaderEpoch   int64        `json:"leader_epoch"`
		StartOffset   int64        `json:"start_offset"`
		StateBatches  []StateBatch `json:"state_batches"`
		Count         int64        `json:"delivery_complete_count"`
	}{r.Type, r.Key, *r.SnapshotEpoch, *r.StateEpoch, *r.LeaderEpoch, *r.StartOffset, nonNil(r.StateBatches), countOf(r)})
}

func i64(v int64) *int64 { return &v }

func snapshotRecord(k Key, snap, state, leader, start int64, b []StateBatch, count int64) Record {
	return Record{"ShareSnapshot", k, i64(snap), i64(state), i64(leader), i64(start), nonNil(b), i64(count)}
}

func updateRecord(k Key, snap, leader, start int64, b []StateBatch, count int64) Record {
	return Record{"ShareUpdate", k, i64(snap), nil, i64(leader), i64(start), nonNil(b), i64(count)}
}

func nonNil(b []StateBatch) []StateBatch {
	if b == nil {
		return []StateBatch{}
	}
	return b
}

// Offset is ShareGroupOffset, the stored state of one share-partition.
type Offset struct {
	SnapshotEpoch, StateEpoch, LeaderEpoch, StartOffset int64
	Batches                                             []StateBatch
	Count                                               int64 // KIP-1226's delivery-complete count
}

// Flaws are deliberate deviations (kspec's broken variants), off by default.
type Flaws struct {
	SeedBug, LowerCountWins, InitAsUpdate, NoLeaderFence bool
}

type topicPartition struct {
	topic     string
	partition int64
}

// Shard is ShardState plus the log this node has appended (for Load).
type Shard struct {
	snapshotLimit int64
	image         map[topicPartition]bool // nil: no metadata image yet
	active        bool
	offsets       map[Key]*Offset
	leaderEpochs  map[Key]int64
	stateEpochs   map[Key]int64
	updateCounts  map[Key]int64
	log           []Record
	flaws         Flaws
	counts        bool // KIP-1226 (4.2+): the delivery-complete count is kept; 4.1 has none (-1)
}

func newShard(limit int64, image map[topicPartition]bool, flaws Flaws) *Shard {
	return &Shard{snapshotLimit: limit, image: image, active: true, offsets: map[Key]*Offset{},
		leaderEpochs: map[Key]int64{}, stateEpochs: map[Key]int64{}, updateCounts: map[Key]int64{}, flaws: flaws}
}

func (s *Shard) combine(start int64, current, added []StateBatch) []StateBatch {
	return combine(start, current, added, s.flaws.LowerCountWins)
}

func maxEpoch(m map[Key]int64, k Key, epoch int64) {
	if old, ok := m[k]; !ok || old < epoch {
		m[k] = epoch
	}
}

// replay applies one record (SHARE-RULE-REPLAY-*).
func (s *Shard) replay(r Record) {
	k := r.Key
	switch r.Type {
	case "ShareTombstone":
		delete(s.offsets, k)
		delete(s.leaderEpochs, k)
		delete(s.stateEpochs, k)
		delete(s.updateCounts, k)
	case "ShareSnapshot":
		if old, ok := s.updateCounts[k]; ok && old >= s.snapshotLimit {
			s.updateCounts[k] = 0
		}
		s.offsets[k] = &Offset{*r.SnapshotEpoch, *r.StateEpoch, *r.LeaderEpoch, *r.StartOffset, nonNil(r.StateBatches),
			countOf(r)}
		maxEpoch(s.leaderEpochs, k, *r.LeaderEpoch)
		maxEpoch(s.stateEpochs, k, *r.StateEpoch)
	case "ShareUpdate":
		cur := s.offsets[k]
		var merged *Offset
		if cur == nil {
			merged = &Offset{*r.SnapshotEpoch, notSet, *r.LeaderEpoch, *r.StartOffset, nonNil(r.StateBatches), countOf(r)}
		} else {
			start, leader := cur.StartOffset, cur.LeaderEpoch
			if *r.StartOffset != notSet {
				start = *r.StartOffset
			}
			if *r.LeaderEpoch != notSet {
				leader = *r.LeaderEpoch
			}
			// An update's count replaces the stored one (no "unchanged" value).
			merged = &Offset{cur.SnapshotEpoch, cur.StateEpoch, leader, start,
				s.combine(start, cur.Batches, r.StateBatches), countOf(r)}
		}
		s.offsets[k] = merged
		maxEpoch(s.leaderEpochs, k, *r.LeaderEpoch)
		// SHARE-VER-UPDATE-COUNT-FROM-ONE: Kafka 4.3 counts v == null ? 1 : v + 1.
		if old, ok := s.updateCounts[k]; ok {
			s.updateCounts[k] = old + 1
		} else {
			s.updateCounts[k] = 1
		}
	}
}

// Request carries the fields of every request type; Type says which.
type Request struct {
	Type         string       `json:"type"`
	GroupID      string       `json:"group_id"`
	TopicID      *string      `json:"topic_id"`
	Partition    int64        `json:"partition"`
	LeaderEpoch  int64        `json:"leader_epoch"`
	StateEpoch   int64        `json:"state_epoch"`
	StartOffset  int64        `json:"start_offset"`
	StateBatches []StateBatch `json:"state_batches"`
	Count        *int64       `json:"delivery_complete_count"`
}

// Response is one of the five response types; the fields a type lacks are omitted.
type Response struct {
	Type         string        `json:"type"`
	TopicID      *string       `json:"topic_id"`
	Partition    int64         `json:"partition"`
	Error        string        `json:"error"`
	Message      string        `json:"message"`
	StateEpoch   *int64        `json:"state_epoch,omitempty"`
	LeaderEpoch  *int64        `json:"leader_epoch,omitempty"`
	StartOffset  *int64        `json:"start_offset,omitempty"`
	StateBatches *[]StateBatch `json:"state_batches,omitempty"`
	Count        *int64        `json:"delivery_complete_count,omitempty"`
}

var responseType = map[string]string{
	"WriteRequest": "WriteResponse", "ReadRequest": "ReadResponse", "InitializeRequest": "InitializeResponse",
	"DeleteRequest": "DeleteResponse", "ReadSummaryRequest": "ReadSummaryResponse",
}

// response builds a response of the request's type with Kafka's defaults: a
// key with no state reads start offset -1 (and leader epoch 0 in a summary);
// the shard's own error responses set only the error, so their numbers are the
// message defaults, 0. The service's COORDINATOR_NOT_AVAILABLE answer keeps -1.
func response(req *Request, errName, msg string) *Response {
	r := &Response{Type: responseType[req.Type], TopicID: req.TopicID, Partition: req.Partition, Error: errName, Message: msg}
	start := int64(-1)
	if errName != errNone && errName != errNotAvailable {
		start = 0
	}
	switch r.Type {
	case "ReadResponse":
		empty := []StateBatch{}
		r.StateEpoch, r.StartOffset, r.StateBatches = i64(defaultStateEpoch), i64(start), &empty
	case "ReadSummaryResponse":
		r.StateEpoch, r.LeaderEpoch, r.StartOffset = i64(defaultStateEpoch), i64(defaultLeaderEpoch), i64(start)
		r.Count = i64(notSet) // KIP-1226: unknown, also the schema's default in an error answer
	}
	return r
}

func (s *Shard) topicError(topic string, partition int64) bool {
	return s.image == nil || !s.image[topicPartition{topic, partition}]
}

func basicError(req *Request) string {
	if req.TopicID == nil {
		return msgNullTopic
	}
	if req.Partition < 0 {
		return msgNegativePart
	}
	return ""
}

// stateRecord is generateShareStateRecord (SHARE-RULE-RECORD-*). The record
// keeps the stored leader and state epochs; only a read (fromRead) records a
// new leader epoch (SHARE-VER-WRITE-KEEPS-EPOCHS).
func (s *Shard) stateRecord(k Key, leader, stateEpoch, start int64, batches []StateBatch, fromRead bool,
	count int64) Record {
	cur := s.offsets[k]
	if !s.counts {
		count = notSet
	}
	if cur == nil { // SHARE-RULE-RECORD-FIRST-SNAPSHOT: Kafka keeps it, though 4.3 refuses such writes first
		return snapshotRecord(k, 0, stateEpoch, leader, start, s.combine(start, nil, batches), count)
	}
	// SHARE-RULE-WRITE-COUNT: a count counts from its start offset: taken from a higher one,
	// the higher count at the same one, the stored count from a lower one (or -1).
	if s.counts && start == cur.StartOffset && cur.Count > count {
		count = cur.Count
	} else if s.counts && start < cur.StartOffset {
		count = cur.Count
	}
	if !fromRead || leader == notSet {
		leader = cur.LeaderEpoch
	}
	stateEpoch = cur.StateEpoch
	if start != notSet && start < cur.StartOffset { // SHARE-RULE-WRITE-START-MONOTONE: an out-of-order write
		start = cur.StartOffset
	}
	if s.updateCounts[k] >= s.snapshotLimit {
		st := start
		if st == notSet {
			st = cur.StartOffset
		}
		var merged []StateBatch
		if s.flaws.SeedBug && start != notSet {
			merged = s.combine(st, nil, batches)
		} else {
			merged = s.combine(st, cur.Batches, batches)
		}
		return snapshotRecord(k, cur.SnapshotEpoch+1, stateEpoch, leader, st, merged, count)
	}
	return updateRecord(k, cur.SnapshotEpoch, leader, start, s.combine(start, nil, batches), count)
}

// step handles one request: the records appended (already replayed) and the response.
func (s *Shard) step(req *Request) ([]Record, *Response) {
	if _, ok := responseType[req.Type]; !ok {
		panic("not a request: " + req.Type)
	}
	if !s.active {
		return nil, response(req, errNotAvailable, msgNotAvailable)
	}
	if msg := basicError(req); msg != "" {
		return nil, response(req, errInvalidRequest, msg)
	}
	k := Key{"SharePartitionKey", req.GroupID, *req.TopicID, req.Partition}
	var records []Record
	var resp *Response
	switch req.Type {
	case "WriteRequest":
		records, resp = s.write(k, req)
	case "ReadRequest":
		records, resp = s.read(k, req)
	case "InitializeRequest":
		records, resp = s.initialize(k, req)
	case "DeleteRequest":
		records, resp = s.delete(k, req)
	case "ReadSummaryRequest":
		resp = s.readSummary(k, req)
	}
	for _, r := range records {
		s.replay(r)
		s.log = append(s.log, r)
	}
	return records, resp
}

func (s *Shard) write(k Key, req *Request) ([]Record, *Response) {
	if s.offsets[k] == nil { // SHARE-VER-UNINITIALIZED-REFUSED
		return nil, response(req, errInvalidRequest, msgWriteUninit)
	}
	if stored, ok := s.leaderEpochs[k]; !s.flaws.NoLeaderFence && req.LeaderEpoch != notSet && ok && stored > req.LeaderEpoch {
		return nil, response(req, errFencedLeader, msgFencedLeader)
	}
	if stored, ok := s.stateEpochs[k]; req.StateEpoch != notSet && ok && stored > req.StateEpoch {
		return nil, response(req, errFencedState, msgFencedState)
	}
	if s.topicError(k.TopicID, k.Partition) {
		return nil, response(req, errUnknownTopic, msgUnknownTopic)
	}
	count := int64(notSet)
	if req.Count != nil {
		count = *req.Count
	}
	rec := s.stateRecord(k, req.LeaderEpoch, req.StateEpoch, req.StartOffset, nonNil(req.StateBatches), false, count)
	return []Record{rec}, response(req, errNone, "")
}

func (s *Shard) read(k Key, req *Request) ([]Record, *Response) {
	if s.offsets[k] == nil { // SHARE-VER-UNINITIALIZED-REFUSED
		return nil, response(req, errInvalidRequest, msgReadUninit)
	}
	stored, known := s.leaderEpochs[k]
	// SHARE-RULE-READ-FENCE; a request epoch of -1 is not fenced (SHARE-VER-READ-FENCE-UNSET).
	if req.LeaderEpoch != notSet && known && stored > req.LeaderEpoch {
		return nil, response(req, errFencedLeader, msgFencedLeader)
	}
	if s.topicError(k.TopicID, k.Partition) {
		return nil, response(req, errUnknownTopic, msgUnknownTopic)
	}
	cur := s.offsets[k] // present: uninitialized keys were refused above
	resp := response(req, errNone, "")
	b := nonNil(append([]StateBatch{}, cur.Batches...))
	resp.StateEpoch, resp.StartOffset, resp.StateBatches = i64(cur.StateEpoch), i64(cur.StartOffset), &b
	// SHARE-RULE-READ-LEADER-EPOCH: a read with a new leader epoch records it.
	if req.LeaderEpoch == notSet || (known && stored == req.LeaderEpoch) {
		return nil, resp
	}
	rec := s.stateRecord(k, req.LeaderEpoch, *resp.StateEpoch, *resp.StartOffset, nil, true, cur.Count)
	return []Record{rec}, resp
}

func (s *Shard) initialize(k Key, req *Request) ([]Record, *Response) {
	if stored, ok := s.stateEpochs[k]; req.StateEpoch != notSet && ok && stored > req.StateEpoch {
		return nil, response(req, errFencedState, msgFencedState)
	}
	if s.topicError(k.TopicID, k.Partition) {
		return nil, response(req, errUnknownTopic, msgUnknownTopic)
	}
	cur := s.offsets[k]
	var rec Record
	if s.flaws.InitAsUpdate && cur != nil {
		rec = updateRecord(k, cur.SnapshotEpoch, notSet, req.StartOffset, nil, notSet)
	} else {
		// SHARE-RULE-INITIALIZE-SNAPSHOT: a fresh snapshot, no batches, next snapshot epoch.
		var snap int64
		if cur != nil {
			snap = cur.SnapshotEpoch + 1
		}
		// SHARE-RULE-INITIALIZE-COUNT (KIP-1226): 0 from a known start offset, else unknown.
		count := int64(notSet)
		if s.counts && req.StartOffset != notSet {
			count = 0
		}
		rec = snapshotRecord(k, snap, req.StateEpoch, 0, req.StartOffset, nil, count)
	}
	return []Record{rec}, response(req, errNone, "")
}

func (s *Shard) delete(k Key, req *Request) ([]Record, *Response) {
	if s.topicError(k.TopicID, k.Partition) {
		return nil, response(req, errUnknownTopic, msgUnknownTopic)
	}
	if s.offsets[k] == nil {
		return nil, response(req, errNone, "")
	}
	return []Record{{Type: "ShareTombstone", Key: k}}, response(req, errNone, "")
}

func (s *Shard) readSummary(k Key, req *Request) *Response {
	if s.topicError(k.TopicID, k.Partition) {
		return response(req, errUnknownTopic, msgUnknownTopic)
	}
	resp := response(req, errNone, "")
	if cur := s.offsets[k]; cur != nil {
		resp.StateEpoch, resp.LeaderEpoch, resp.StartOffset = i64(cur.StateEpoch), i64(cur.LeaderEpoch), i64(cur.StartOffset)
		resp.Count = i64(cur.Count)
	}
	return resp
}

// observe is shard.observe: the stored state per share-partition key.
func (s *Shard) observe() map[string]any {
	keys := map[Key]bool{}
	for k := range s.offsets {
		keys[k] = true
	}
	for _, m := range []map[Key]int64{s.leaderEpochs, s.stateEpochs, s.updateCounts} {
		for k := range m {
			keys[k] = true
		}
	}
	parts := map[string]any{}
	opt := func(m map[Key]int64, k Key) any {
		if v, ok := m[k]; ok {
			return v
		}
		return nil
	}
	for k := range keys { // encoding/json writes map keys sorted
		var off any
		if o := s.offsets[k]; o != nil {
			batches := make([][4]int64, 0, len(o.Batches))
			for _, b := range o.Batches {
				batches = append(batches, [4]int64{b.FirstOffset, b.LastOffset, b.DeliveryState, b.DeliveryCount})
			}
			off = map[string]any{"snapshot_epoch": o.SnapshotEpoch, "state_epoch": o.StateEpoch,
				"leader_epoch": o.LeaderEpoch, "start_offset": o.StartOffset, "state_batches": batches,
				"delivery_complete_count": o.Count}
		}
		parts[k.coordinatorKey()] = map[string]any{"offset": off, "leader_epoch_fence": opt(s.leaderEpochs, k),
			"state_epoch_fence": opt(s.stateEpochs, k), "update_count": opt(s.updateCounts, k)}
	}
	return map[string]any{"active": s.active, "partitions": parts}
}
