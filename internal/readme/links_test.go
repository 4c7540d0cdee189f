package readme

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mdLink is a Markdown link or image target: ](target) or ](target#anchor).
var mdLink = regexp.MustCompile(`\]\(([^)\s#]+)(?:#[^)]*)?\)`)

// TestDocLinksResolve: every relative link and image of the README and of
// docs/*.md names a file that exists, read from the directory of the file
// that links it (docs/guide.md's images are img/…, not docs/img/…).
func TestDocLinksResolve(t *testing.T) {
	files, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	files = append(files, "../../README.md")
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range mdLink.FindAllStringSubmatch(string(raw), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			_, err := os.Stat(filepath.Join(filepath.Dir(f), target))
			assert.NoError(t, err, "%s links %s", strings.TrimPrefix(f, "../../"), target)
		}
	}
}
