package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-access-id", "ID1", "-access-key", "KEY1", "-merchant-id", "77",
			"-start", "2024-03-01T10:00:00Z"}, pw, io.Discard)
		pw.Close()
	}()

	fields := map[string]string{}
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		line := sc.Text()
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && !strings.Contains(k, " -") {
			fields[k] = strings.TrimSpace(v)
		}
		if strings.HasPrefix(line, "Press Ctrl+C") {
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	base, control := fields["API base URL"], fields["control URL"]
	if !strings.HasSuffix(base, "/api/v1") || !strings.HasSuffix(control, "/sandbox") ||
		fields["accessId"] != "ID1" || fields["accessKey"] != "KEY1" || fields["merchantId"] != "77" {
		t.Fatalf("banner fields %v", fields)
	}

	req, _ := http.NewRequest(http.MethodPost, control+"/advance?d=72h", nil)
	req.SetBasicAuth("ID1", "KEY1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var now struct {
		Time string `json:"time"`
	}
	err = json.NewDecoder(resp.Body).Decode(&now)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || now.Time != "2024-03-04T10:00:00Z" {
		t.Fatalf("advance: %d %+v %v", resp.StatusCode, now, err)
	}
	req, _ = http.NewRequest(http.MethodGet, base+"/transactions/1", nil)
	req.SetBasicAuth("ID1", "wrong")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("bad credentials: %d", resp.StatusCode)
	}

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
}

func TestRunBadFlags(t *testing.T) {
	ctx := context.Background()
	for _, args := range [][]string{
		{"-start", "yesterday"},
		{"-addr", "not an address"},
		{"extra"},
		{"-nope"},
	} {
		if err := run(ctx, args, io.Discard, io.Discard); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
