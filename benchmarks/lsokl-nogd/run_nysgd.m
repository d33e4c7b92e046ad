% run_nysgd.m: the LSOKL toolbox's binary NysGD (as NysGD_eig: dense eig
% for eigs) on a dataset of the toolbox, over its stored orders, with the
% settings of its driver experiment_B.m (k = 0.2·B, t_tick = round(n/15))
% at the given σ, budget and η. Prints the mean and standard deviation of
% the mistake rate (%) and the per-order mistakes.
%
% usage: octave-cli run_nysgd.m DATA.mat ETA RUNS SIGMA BUDGET
% DATA.mat holds `data` (label in column 1) and `ID_all` (one order per row).
args = argv();
load(args{1});
eta = str2double(args{2}); runs = str2double(args{3});
sigma = str2double(args{4}); budget = str2double(args{5});
[n, d] = size(data);
options.Budget = budget; options.t_tick = round(n/15); options.sigma = sigma;
options.eta_nogd = eta; options.k = 0.2;
Y = data(:, 1); X = data(:, 2:d);
err = zeros(1, runs); secs = zeros(1, runs);
for i = 1:runs
  [classifier, err(i), secs(i)] = NysGD_eig(Y, X, options, ID_all(i, :));
end
printf('toolbox  sigma=%g eta=%g: %.3f ± %.3f %% over %d orders, %.2f s a pass\n', ...
  sigma, eta, mean(err)/n*100, std(err)/n*100, runs, mean(secs));
printf('         mistakes per order: %s\n', sprintf('%d ', err));
