package engines

import (
	"bufio"
	"encoding/gob"
	"fmt"
	"io"
)

// modelMagic starts every saved model; bump the version when a state layout changes.
const modelMagic = "harkd-model-v1"

type modelHeader struct {
	Magic  string
	Engine string
}

// writeModel writes the header and the engine's exported state with encoding/gob (float32 slices
// keep factor matrices compact).
func writeModel(w io.Writer, engine string, state any) error {
	bw := bufio.NewWriter(w)
	enc := gob.NewEncoder(bw)
	if err := enc.Encode(modelHeader{Magic: modelMagic, Engine: engine}); err != nil {
		return fmt.Errorf("save %s model: %w", engine, err)
	}
	if err := enc.Encode(state); err != nil {
		return fmt.Errorf("save %s model: %w", engine, err)
	}
	return bw.Flush()
}

// Load reads a model written by Save.
func Load(r io.Reader) (Model, error) {
	return loadFrom(gob.NewDecoder(bufio.NewReader(r)))
}

func loadFrom(dec *gob.Decoder) (Model, error) {
	var h modelHeader
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	if h.Magic != modelMagic {
		return nil, fmt.Errorf("load model: not a harkd model (magic %q)", h.Magic)
	}
	var (
		m     Model
		state any
	)
	switch h.Engine {
	case Popular:
		p := &popularModel{}
		m, state = p, &p.S
	case Hybrid:
		h := &hybridModel{}
		m, state = h, &h.S
	case ContentBased:
		c := &contentModel{}
		m, state = c, &c.S
	case FM:
		f := &fmModel{}
		m, state = f, &f.S
	case ISVD:
		v := &isvdModel{}
		m, state = v, &v.S
	case Ensemble:
		e := &ensembleModel{}
		m, state = e, &e.S
	default:
		return nil, fmt.Errorf("load model: %w %q", ErrUnknownEngine, h.Engine)
	}
	if err := dec.Decode(state); err != nil {
		return nil, fmt.Errorf("load %s model: %w", h.Engine, err)
	}
	if v, ok := m.(interface{ afterLoad() error }); ok {
		if err := v.afterLoad(); err != nil {
			return nil, fmt.Errorf("load %s model: %w", h.Engine, err)
		}
	}
	return m, nil
}
