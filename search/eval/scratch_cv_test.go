package eval

import (
	"fmt"
	"testing"

	"github.com/plughost/plughost/search"
)

func TestScratchCV(t *testing.T) {
	b := loadBench(t)
	wv, err := search.LoadWordVectors("../../.cache/wordvec.bin")
	if err != nil {
		t.Fatal(err)
	}
	d := Data{Tools: b.tools, Single: b.single, Multi: b.multi}
	rows, err := d.Ablate(AblationVariants(), 1, wv)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		f := func(x Figures) string {
			return fmt.Sprintf("%.3f/%.3f %.3f/%.3f %.3f", x.L1.R1, x.L1.R5, x.L2.R1, x.L2.R5, x.Multi.All10)
		}
		fmt.Printf("%-28s A %s | B %s | all %s %v\n", r.Variant.Name, f(r.A), f(r.B), f(r.All), r.BothImproved)
	}
	folds, err := d.CrossValidate(Grid(), wv)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range folds {
		fmt.Printf("train %s chosen %s: held %.4f lexical %.4f\n", f.Train, describe(f.Chosen), f.Held.Objective(), f.Lexical.Objective())
	}
}
