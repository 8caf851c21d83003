package engines

import (
	"context"
	"fmt"
	"runtime"
)

// Bounds on training settings, so a bad configuration or a corrupted model cannot ask for huge
// allocations.
const (
	maxFactors    = 1024
	maxIterations = 1000
)

// Train trains one engine on ds. Training stops with ctx's error when ctx is cancelled or its deadline
// (the training time budget) passes. A dataset without interactions gives ErrNoInteractions.
// The ensemble engine is not trained: build it with NewEnsemble from trained models.
func Train(ctx context.Context, engine string, ds *Dataset, cfg TrainConfig) (Model, error) {
	if err := ds.validate(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if cfg.Factors > maxFactors || cfg.Iterations > maxIterations {
		return nil, fmt.Errorf("engines: factors %d or iterations %d above the limits %d and %d",
			cfg.Factors, cfg.Iterations, maxFactors, maxIterations)
	}
	if !(cfg.NeighbourWeight >= 0 && cfg.NeighbourWeight <= 1) {
		return nil, fmt.Errorf("engines: neighbour weight %v outside [0,1]", cfg.NeighbourWeight)
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	var (
		m   Model
		err error
	)
	switch engine {
	case Popular:
		m, err = trainPopular(ctx, ds, cfg)
	case Hybrid:
		m, err = trainHybrid(ctx, ds, cfg)
	case ContentBased:
		m, err = trainContent(ctx, ds, cfg)
	case FM:
		m, err = trainFM(ctx, ds, cfg)
	case ISVD:
		m, err = trainISVD(ctx, ds, cfg)
	case Ensemble:
		return nil, fmt.Errorf("engines: ensemble is not trained, build it with NewEnsemble")
	default:
		return nil, fmt.Errorf("%w %q", ErrUnknownEngine, engine)
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Trainable lists the engines Train accepts, in the order of the API documentation.
var Trainable = []string{ContentBased, Hybrid, FM, ISVD, Popular}

// Defaults returns the settings engine trains with when a TrainConfig leaves them zero, so that a
// report can show them. Defaults that depend on the data (isvd's rank, popular's half-life) stay zero.
func Defaults(engine string) TrainConfig {
	switch engine {
	case Hybrid:
		return TrainConfig{Factors: hybridFactors, Iterations: hybridIterations, Regularization: hybridRegularization,
			Alpha: hybridAlpha, AttributeWeight: hybridAttributeWeight}
	case FM:
		return TrainConfig{Factors: fmFactors, Iterations: fmEpochs, LearningRate: fmLearningRate,
			Regularization: fmRegularization}
	}
	return TrainConfig{}
}
