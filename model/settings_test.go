package model

import (
	"errors"
	"testing"

	"prototyper/store"
)

func TestCheckSettingsRefusesAnAddressNoClientCanUse(t *testing.T) {
	for _, tc := range []struct {
		name    string
		s       store.Settings
		setting string
	}{
		{"an Ollama address that is none", store.Settings{OllamaURL: "not a url"}, "ollamaUrl"},
		{"an Ollama address of another scheme", store.Settings{OllamaURL: "ftp://127.0.0.1:11434"}, "ollamaUrl"},
		{"a base URL without a host", store.Settings{BaseURL: "http://"}, "baseUrl"},
		{"a base URL of another scheme", store.Settings{BaseURL: "ftp://gpu:8000/v1"}, "baseUrl"},
		{"nothing set", store.Settings{}, ""},
		{"both addresses usable", store.Settings{OllamaURL: "localhost:11434", BaseURL: "http://gpu:8000"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckSettings(tc.s)
			var invalid *store.InvalidSettingError
			switch {
			case tc.setting == "" && err != nil:
				t.Errorf("CheckSettings = %v, want nil", err)
			case tc.setting != "" && (!errors.As(err, &invalid) || invalid.Setting != tc.setting):
				t.Errorf("CheckSettings = %v, want an InvalidSettingError for %s", err, tc.setting)
			}
		})
	}
}
