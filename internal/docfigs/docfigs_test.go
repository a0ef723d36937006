package docfigs

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGetSet(t *testing.T) {
	doc := "a\n<!-- figure x -->\nold\n<!-- /figure x -->\nb\n"
	got, err := Get(doc, "x")
	require.NoError(t, err)
	require.Equal(t, "old\n", got)
	doc2, err := Set(doc, "x", "new 1\nnew 2")
	require.NoError(t, err)
	require.Equal(t, "a\n<!-- figure x -->\nnew 1\nnew 2\n<!-- /figure x -->\nb\n", doc2)
	_, err = Get(doc, "y")
	require.ErrorContains(t, err, `no figure "y"`)
	_, err = Get("<!-- figure x -->\nold\n", "x")
	require.ErrorContains(t, err, "not closed")
}
