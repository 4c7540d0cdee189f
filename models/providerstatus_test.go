package models

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestProviderStatusMeaning(t *testing.T) {
	assert.Equal(t, "established", ProviderStatus("SW010").Meaning())
	assert.Equal(t, "payment pending", ProviderStatus("AC100").Meaning())
	assert.True(t, strings.HasPrefix(ProviderStatus("UC08").Meaning(), "user canceled"))
	assert.Equal(t, "", ProviderStatus("SE99").Meaning())
	assert.Equal(t, "", ProviderStatus("10").Meaning())
	for code, m := range providerMeanings {
		assert.NotEmpty(t, m, code)
	}
}
