package main

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
)

// statePartitions is share.coordinator.state.topic.num.partitions (Kafka's default).
const statePartitions = 50

// coordinatorResponse answers FindCoordinator (key type SHARE): the
// __share_group_state partition that owns the share-partition, -1 with an error.
type coordinatorResponse struct {
	Type        string  `json:"type"`
	TopicID     *string `json:"topic_id"`
	Partition   int64   `json:"partition"`
	Error       string  `json:"error"`
	Message     string  `json:"message"`
	Coordinator int64   `json:"coordinator"`
}

// parseKey is SHARE-RULE-KEY-PARSE: the topic id and partition are the last two
// fields of "group:topic:partition"; the group id is the rest, ':' and all.
func parseKey(key string) (group, topic string, partition int64, ok bool) {
	last := strings.LastIndex(key, ":")
	if last < 0 {
		return "", "", 0, false
	}
	mid := strings.LastIndex(key[:last], ":")
	if mid <= 0 {
		return "", "", 0, false
	}
	p, err := strconv.ParseInt(key[last+1:], 10, 32)
	if err != nil || mid+1 == last {
		return "", "", 0, false
	}
	return key[:mid], key[mid+1 : last], p, true
}

// javaHash is Java's String.hashCode over UTF-16 code units.
func javaHash(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}

// findCoordinator is SHARE-RULE-ROUTING applied to the key the broker parsed:
// Utils.abs(key.hashCode()) % partitions, with Utils.abs(MIN_VALUE) = 0.
func findCoordinator(req *Request) *coordinatorResponse {
	r := &coordinatorResponse{Type: "FindCoordinatorResponse", TopicID: req.TopicID, Partition: req.Partition,
		Error: errNone, Coordinator: -1}
	if req.TopicID == nil {
		r.Error, r.Message = "INVALID_REQUEST", "The topic id cannot be null."
		return r
	}
	key := fmt.Sprintf("%s:%s:%d", req.GroupID, *req.TopicID, req.Partition)
	group, topic, partition, ok := parseKey(key)
	if !ok {
		r.Error, r.Message = "INVALID_REQUEST", "Invalid key format: "+key
		return r
	}
	h := javaHash(fmt.Sprintf("%s:%s:%d", group, topic, partition))
	abs := int64(h)
	if h == -2147483648 {
		abs = 0
	} else if abs < 0 {
		abs = -abs
	}
	r.Coordinator = abs % statePartitions
	return r
}
