package model

import (
	"prototyper/model/ollama"
	"prototyper/model/openai"
	"prototyper/store"
)

// CheckSettings judges the settings' server addresses by the clients' own rules: the Ollama
// address ([ollama.ResolveHost]) and the OpenAI-compatible base URL ([openai.ParseBaseURL]).
// It returns a [*store.InvalidSettingError] naming the field; the store consults it before
// saving (store.Options.CheckSettings), since the store imports no client.
func CheckSettings(s store.Settings) error {
	if s.OllamaURL != "" {
		if _, err := ollama.ResolveHost(s.OllamaURL); err != nil {
			return &store.InvalidSettingError{Setting: "ollamaUrl", Reason: err.Error()}
		}
	}
	if s.BaseURL != "" {
		if _, err := openai.ParseBaseURL(s.BaseURL); err != nil {
			return &store.InvalidSettingError{Setting: "baseUrl", Reason: err.Error()}
		}
	}
	return nil
}
