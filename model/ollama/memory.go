package ollama

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
)

// Memory is the machine's memory as the kernel counts it (/proc/meminfo), in bytes: what the
// server's models share with everything else.
type Memory struct {
	Total int64
	// Available is what can be given to a new model without swapping (MemAvailable).
	Available int64
}

// MachineMemory reads the machine's memory; zero fields where the kernel does not say (a
// system without /proc/meminfo).
func MachineMemory() Memory {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return Memory{}
	}
	return parseMeminfo(data)
}

// parseMeminfo reads MemTotal and MemAvailable (in kB) from /proc/meminfo's text.
func parseMeminfo(data []byte) Memory {
	var m Memory
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		fields := bytes.Fields(sc.Bytes())
		if len(fields) < 2 {
			continue
		}
		kb, err := strconv.ParseInt(string(fields[1]), 10, 64)
		if err != nil {
			continue
		}
		switch string(fields[0]) {
		case "MemTotal:":
			m.Total = kb * 1024
		case "MemAvailable:":
			m.Available = kb * 1024
		}
	}
	return m
}
