// go-share-target: kspec's share coordinator shard as an out-of-process
// conformance target, speaking the stdio adapter protocol
// (spec/adapter-protocol.md, version 1) with only the standard library. It
// follows Kafka 4.3's rules and refuses a start whose config asks for another
// release (kafka_version).
//
//	go build -o share-target . && kspec conform share --target exec:./share-target
//
// -flaw NAME runs a deliberately broken variant (seed-bug, lower-count-wins,
// init-as-update, no-leader-fence), so a harness can be shown to catch it.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

const adapterVersion = 1

type request struct {
	ID       *int64          `json:"id"`
	Op       string          `json:"op"`
	Node     *int64          `json:"node"`
	Protocol string          `json:"protocol"`
	Version  int64           `json:"version"`
	Config   json.RawMessage `json:"config"`
	Input    json.RawMessage `json:"input"`
}

type config struct {
	SnapshotLimit *int64    `json:"snapshot_limit"`
	Image         *[][2]any `json:"image"`
	KafkaVersion  *string   `json:"kafka_version"`
	Active        *bool     `json:"active"`
	Log           []Record  `json:"log"`
}

// node is one started shard and what it needs to be loaded again.
type node struct {
	shard  *Shard
	limit  int64
	image  map[topicPartition]bool
	preLog []Record // config.log, replayed before the node's own records on Load
	counts bool     // KIP-1226 (4.2+)
}

type server struct {
	flaws Flaws
	nodes map[int64]*node
}

func parseImage(raw *[][2]any) (map[topicPartition]bool, error) {
	if raw == nil {
		return nil, nil
	}
	image := map[topicPartition]bool{}
	for _, tp := range *raw {
		topic, ok1 := tp[0].(string)
		part, ok2 := tp[1].(float64)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("config.image: %v is not [topic_id, partition]", tp)
		}
		image[topicPartition{topic, int64(part)}] = true
	}
	return image, nil
}

func (s *server) start(id int64, raw json.RawMessage) (map[string]any, error) {
	var cfg config
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &cfg); err != nil {
			return nil, fmt.Errorf("config: %v", err)
		}
	}
	// One rule set: 4.1 to 4.3 and their patch releases ("4.3.1") follow the same rules.
	if v := cfg.KafkaVersion; v != nil && !followsSameRules(*v) {
		return nil, fmt.Errorf("config.kafka_version %q: this target implements Kafka %s's share coordinator only",
			*v, kafkaVersion)
	}
	limit := int64(defaultSnapshotEach)
	if cfg.SnapshotLimit != nil {
		limit = *cfg.SnapshotLimit
	}
	image, err := parseImage(cfg.Image)
	if err != nil {
		return nil, err
	}
	// KIP-1226's count arrives in 4.2 (the model's rule set 4.2): a 4.1 run keeps none.
	counts := cfg.KafkaVersion == nil || !(*cfg.KafkaVersion == "4.1" || strings.HasPrefix(*cfg.KafkaVersion, "4.1."))
	n := &node{limit: limit, image: image, counts: counts}
	n.shard = n.load(s.flaws, nil)
	s.nodes[id] = n
	return n.shard.observe(), nil
}

// load is SHARE-RULE-LOAD: a fresh shard replaying the partition's log.
func (n *node) load(flaws Flaws, log []Record) *Shard {
	sh := newShard(n.limit, n.image, flaws)
	sh.counts = n.counts
	for _, r := range log {
		sh.replay(r)
	}
	sh.log = append([]Record{}, log...)
	return sh
}

func (s *server) step(id int64, raw json.RawMessage) ([]any, map[string]any, error) {
	n, ok := s.nodes[id]
	if !ok {
		return nil, nil, fmt.Errorf("node %d was not started", id)
	}
	var head struct {
		Type    string    `json:"type"`
		Records *[]Record `json:"records"`
		Image   *[][2]any `json:"image"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, nil, fmt.Errorf("input: %v", err)
	}
	outputs := []any{}
	switch head.Type {
	case "Unload":
		n.shard.active = false
	case "Load":
		// The harness sends the partition's log; without it, the records this node appended.
		log := n.shard.log
		if head.Records != nil {
			log = *head.Records
			for i, r := range log {
				if err := r.check(); err != nil {
					return nil, nil, fmt.Errorf("Load: records[%d]: %v", i, err)
				}
			}
		}
		n.shard = n.load(s.flaws, log)
	case "MetadataUpdate":
		// SHARE-RULE-METADATA-UPDATE: requests are validated against the new image from now on
		// (and a later Load starts from it); stored state stays.
		image, err := parseImage(head.Image)
		if err != nil {
			return nil, nil, fmt.Errorf("MetadataUpdate: %v", err)
		}
		n.image = image
		n.shard.image = image
	case "FindCoordinatorRequest":
		// Answered by the broker from the key alone, whatever the shard holds.
		var req Request
		if err := json.Unmarshal(raw, &req); err != nil {
			return nil, nil, fmt.Errorf("input %s: %v", head.Type, err)
		}
		outputs = append(outputs, findCoordinator(&req))
	default:
		if _, known := responseType[head.Type]; !known {
			return nil, nil, fmt.Errorf("unsupported input type %q", head.Type)
		}
		var req Request
		if err := json.Unmarshal(raw, &req); err != nil {
			return nil, nil, fmt.Errorf("input %s: %v", head.Type, err)
		}
		records, resp := n.shard.step(&req)
		for _, r := range records {
			outputs = append(outputs, r)
		}
		outputs = append(outputs, resp)
	}
	return outputs, n.shard.observe(), nil
}

func main() {
	flaw := flag.String("flaw", "", "a deliberately broken variant: seed-bug, lower-count-wins, init-as-update, no-leader-fence")
	flag.Parse()
	var flaws Flaws
	switch *flaw {
	case "":
	case "seed-bug":
		flaws.SeedBug = true
	case "lower-count-wins":
		flaws.LowerCountWins = true
	case "init-as-update":
		flaws.InitAsUpdate = true
	case "no-leader-fence":
		flaws.NoLeaderFence = true
	default:
		fmt.Fprintf(os.Stderr, "go-share-target: unknown -flaw %q\n", *flaw)
		os.Exit(2)
	}
	if err := serve(os.Stdin, os.Stdout, &server{flaws: flaws, nodes: map[int64]*node{}}); err != nil {
		fmt.Fprintf(os.Stderr, "go-share-target: %v\n", err)
		os.Exit(1)
	}
}

func serve(in io.Reader, out io.Writer, s *server) error {
	scanner := bufio.NewScanner(in)
	scanner.Buffer(make([]byte, 1<<20), 64<<20)
	w := bufio.NewWriter(out)
	answer := func(v map[string]any) error {
		line, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if _, err := w.Write(append(line, '\n')); err != nil {
			return err
		}
		return w.Flush()
	}
	for scanner.Scan() {
		if len(scanner.Bytes()) == 0 {
			continue
		}
		var req request
		if err := json.Unmarshal(scanner.Bytes(), &req); err != nil || req.ID == nil {
			return fmt.Errorf("malformed request: %q", scanner.Text())
		}
		id := *req.ID
		fail := func(err error) error { return answer(map[string]any{"id": id, "error": err.Error()}) }
		var err error
		switch {
		case req.Op == "hello":
			err = answer(map[string]any{"id": id, "version": adapterVersion, "protocols": []string{"share"},
				"implementation": "go-share-target 0.1",
				// it answers FindCoordinator (routing.go): the routing probes are opt-in
				"model_config": map[string]any{"routing": true}})
		case req.Op == "close" && req.Node == nil:
			return answer(map[string]any{"id": id})
		case req.Node == nil:
			err = fail(fmt.Errorf("%s without node", req.Op))
		case req.Op == "start":
			if req.Protocol != "share" {
				err = fail(fmt.Errorf("protocol %q is not implemented", req.Protocol))
				break
			}
			obs, e := s.start(*req.Node, req.Config)
			if e != nil {
				err = fail(e)
			} else {
				err = answer(map[string]any{"id": id, "outputs": []any{}, "observation": obs})
			}
		case req.Op == "step":
			outs, obs, e := s.step(*req.Node, req.Input)
			if e != nil {
				err = fail(e)
			} else {
				err = answer(map[string]any{"id": id, "outputs": outs, "observation": obs})
			}
		case req.Op == "close":
			delete(s.nodes, *req.Node)
			err = answer(map[string]any{"id": id})
		default:
			err = fail(fmt.Errorf("unknown op %q", req.Op))
		}
		if err != nil {
			return err
		}
	}
	if err := scanner.Err(); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// check reports a record that lacks a field its class has.
func (r Record) check() error {
	switch r.Type {
	case "ShareTombstone":
		return nil
	case "ShareSnapshot":
		if r.StateEpoch == nil {
			return fmt.Errorf("ShareSnapshot lacks state_epoch")
		}
	case "ShareUpdate":
	default:
		return fmt.Errorf("unknown record type %q", r.Type)
	}
	if r.SnapshotEpoch == nil || r.LeaderEpoch == nil || r.StartOffset == nil {
		return fmt.Errorf("%s lacks snapshot_epoch, leader_epoch or start_offset", r.Type)
	}
	return nil
}

// followsSameRules reports whether release v (e.g. "4.2" or "4.3.1") follows this shard's rules.
func followsSameRules(v string) bool {
	for _, r := range sameRules {
		if v == r || strings.HasPrefix(v, r+".") {
			return true
		}
	}
	return false
}
